import Foundation

/// Why a reminder is or is not due for a user, step by step: what `remindctl explain` prints.
public struct Explanation: Sendable, Equatable {
    public struct Reason: Sendable, Equatable {
        /// A stable code for scripts; the text is for people.
        public var code: Code
        public var text: String
    }

    public enum Code: String, Sendable, CaseIterable {
        case alwaysAccess
        case episodeOpen
        case reducedAccuracy
        case delivered
        case seriesEnded
        case notificationsOff
        case suppressed
        case quietHours
        case jitter
        case catchUp
        case due
        case overdue
        case heartbeat
        /// Where the push sinks would put the reminder, or why they cannot.
        case push
    }

    public var userID: UserID
    public var nextReminderAt: Date?
    public var reasons: [Reason]
}

extension ReminderPolicy {
    /// Explains the reminder state of `record` at `now`, in the order the policy decides, and
    /// then whether the push sinks can reach the user's device.
    public func explain(_ record: UserRecord, now: Date, daemonStartedAt: Date?) -> Explanation {
        var explanation = explainSchedule(record, now: now, daemonStartedAt: daemonStartedAt)
        explanation.reasons.append(Explanation.pushReason(record.device.push))
        return explanation
    }

    private func explainSchedule(_ record: UserRecord, now: Date, daemonStartedAt: Date?) -> Explanation {
        var reasons: [Explanation.Reason] = []
        func add(_ code: Explanation.Code, _ text: String) {
            reasons.append(.init(code: code, text: text))
        }
        let permissions = record.permissions
        let nextReminderAt = reminderWakeAt(record, daemonStartedAt: daemonStartedAt)

        guard let permissions, let episode = record.openEpisode else {
            let location = permissions.map { "location \($0.location.rawValue)" } ?? "no report"
            add(.alwaysAccess, "Always access granted (\(location)): no reminder is due")
            if let heartbeat = heartbeatDueAt(record) {
                add(.heartbeat, "heartbeat due \(RFC3339.format(heartbeat)) unless the user reports before")
            }
            return Explanation(userID: record.userID, nextReminderAt: nil, reasons: reasons)
        }
        let cause =
            permissions.locationServices
            ? "location \(permissions.location.rawValue)" : "Location Services turned off"
        add(.episodeOpen, "Always access missing since \(RFC3339.format(episode.startedAt)) (\(cause))")
        if permissions.accuracy == .reduced {
            add(.reducedAccuracy, "precise location is off (reported, but it does not trigger reminders)")
        }
        if !episode.deliveries.isEmpty {
            let last = episode.deliveries[episode.deliveries.count - 1]
            add(
                .delivered,
                "\(episode.deliveries.count) reminder(s) delivered in this episode, the last at \(RFC3339.format(last.deliveredAt))"
            )
        }
        guard mayRemind(deliveredCount: episode.deliveries.count) else {
            if !configuration.notification.showRecurringNotification {
                add(.seriesEnded, "showRecurringNotification is false: one reminder per episode, already delivered")
            } else {
                add(
                    .seriesEnded,
                    "maxRemindersPerEpisode (\(configuration.maxRemindersPerEpisode ?? 0)) reached: no more reminders")
            }
            return Explanation(userID: record.userID, nextReminderAt: nil, reasons: reasons)
        }
        let unshifted = unshiftedDueAt(record.schedule) ?? episode.startedAt
        let due = reminderDueAt(record) ?? unshifted
        let jitter = jitter(for: record.userID)
        if episode.deliveries.isEmpty && jitter > 0 {
            add(.jitter, "jitter adds \(Int(jitter)) s for this user")
        }
        if due != unshifted, let quietHours = configuration.quietHours {
            add(
                .quietHours,
                "due \(RFC3339.format(unshifted)) falls in quiet hours \(quietHours.startText)–\(quietHours.endText) \(permissions.timeZone ?? ""): moved to \(RFC3339.format(due))"
            )
        }
        if !permissions.notifications.isDeliverable {
            if episode.isSuppressed {
                add(
                    .suppressed,
                    "notifications \(permissions.notifications.rawValue): the reminder due \(RFC3339.format(due)) was suppressed and goes out as soon as notifications are allowed"
                )
            } else {
                add(
                    .notificationsOff,
                    "notifications \(permissions.notifications.rawValue): the reminder due \(RFC3339.format(due)) will be suppressed unless they are allowed by then"
                )
            }
            return Explanation(userID: record.userID, nextReminderAt: nextReminderAt, reasons: reasons)
        }
        if let nextReminderAt, nextReminderAt > due {
            add(
                .catchUp,
                "came due while the daemon was down: catch-up spread sends it at \(RFC3339.format(nextReminderAt))")
        }
        if let nextReminderAt, nextReminderAt <= now {
            add(.overdue, "reminder \(episode.deliveries.count + 1) was due \(RFC3339.format(due)): it goes out now")
        } else {
            add(.due, "reminder \(episode.deliveries.count + 1) due \(RFC3339.format(nextReminderAt ?? due))")
        }
        return Explanation(userID: record.userID, nextReminderAt: nextReminderAt, reasons: reasons)
    }
}
