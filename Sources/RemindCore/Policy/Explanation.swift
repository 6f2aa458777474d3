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
        /// The channel the next reminder takes: push, or the fallback sinks and why.
        case channel
        /// No error that `notification.remindFor` lists, though Always access is missing.
        case nothingToRemind
        /// A configured service that is degraded or stopped, with what would fix it.
        case service
        /// Where `notification.sendTime` `active` puts the reminder, and why.
        case sendTime
        /// The ask the user's next report would get (docs/in-app.md), or why none.
        case ask
        /// What the app reported of this episode's reminders and asks.
        case engagement
    }

    public var userID: UserID
    public var nextReminderAt: Date?
    public var reasons: [Reason]
}

extension ReminderPolicy {
    /// Explains the reminder state of `record` at `now`, in the order the policy decides, and
    /// then whether the push sinks can reach the user's device.
    public func explain(_ record: UserRecord, now: Date, daemonStartedAt: Date?) -> Explanation {
        var explanation = explainReminder(record, now: now, daemonStartedAt: daemonStartedAt)
        // The services come next: they do not change when a reminder is due, but they are what
        // the user's missing permissions break, and what fixing each would restore.
        if let permissions = record.permissions {
            for (name, status) in services(permissions) where status.state != .active {
                let fixes = status.missing.map { "\($0.rawValue): \($0.fix)" }.joined(separator: "; ")
                explanation.reasons.append(
                    .init(code: .service, text: "service \(name) is \(status.state.rawValue) — to fix, \(fixes)"))
            }
        }
        // Then the app's side: the ask the next report would get, and what the user did so far.
        explanation.reasons += explainAsk(record, now: now)
        // Last, whether the push sinks can reach the device at all.
        explanation.reasons.append(Explanation.pushReason(record.device.push))
        return explanation
    }

    private func explainReminder(_ record: UserRecord, now: Date, daemonStartedAt: Date?) -> Explanation {
        var reasons: [Explanation.Reason] = []
        func add(_ code: Explanation.Code, _ text: String) {
            reasons.append(.init(code: code, text: text))
        }
        let permissions = record.permissions
        let nextReminderAt = reminderWakeAt(record, daemonStartedAt: daemonStartedAt)

        guard let permissions, let episode = record.openEpisode, let reason = reason(permissions) else {
            let location = permissions.map { "location \($0.location.rawValue)" } ?? "no report"
            if let permissions, !permissions.hasAlwaysAccess {
                let listed = configuration.notification.remindFor.members.map(\.rawValue).joined(separator: ", ")
                add(
                    .nothingToRemind,
                    "no error that notification.remindFor lists (\(listed)) is present (\(location)): no reminder is due"
                )
            } else {
                add(.alwaysAccess, "Always access granted (\(location)): no reminder is due")
            }
            if let heartbeat = heartbeatDueAt(record) {
                add(.heartbeat, "heartbeat due \(RFC3339.format(heartbeat)) unless the user reports before")
            }
            return Explanation(userID: record.userID, nextReminderAt: nil, reasons: reasons)
        }
        switch reason {
        case .locationServicesTurnedOff, .locationNotAuthorizedAlways:
            let cause =
                permissions.locationServices
                ? "location \(permissions.location.rawValue)" : "Location Services turned off"
            add(.episodeOpen, "Always access missing since \(RFC3339.format(episode.startedAt)) (\(cause))")
        case .preciseLocationNotEnabled:
            add(
                .episodeOpen,
                "reminding since \(RFC3339.format(episode.startedAt)): precise location is off (accuracy reduced)")
        case .notificationsTurnedOff, .motionNotAuthorized:
            add(
                .episodeOpen,
                "reminding since \(RFC3339.format(episode.startedAt)): motion \(permissions.motion.rawValue)")
        }
        if permissions.accuracy == .reduced
            && !configuration.notification.remindFor.contains(.preciseLocationNotEnabled)
        {
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
        var sent = unshifted
        if configuration.notification.sendTime != .due {
            let choice = sendTime(for: unshifted, record.schedule)
            sent = choice.sendAt
            add(.sendTime, Self.describe(choice, due: unshifted))
        }
        if due != sent.addingTimeInterval(jitter), let quietHours = configuration.quietHours {
            add(
                .quietHours,
                "due \(RFC3339.format(sent)) falls in quiet hours \(quietHours.startText)–\(quietHours.endText) \(permissions.timeZone ?? ""): moved to \(RFC3339.format(due))"
            )
        }
        // With a fallback sink, notifications off route the reminder there instead (below).
        if !permissions.notifications.isDeliverable && !configuration.channels.hasFallback {
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
        // Only with a fallback sink is there a choice to explain: otherwise it is push.
        if configuration.channels.hasFallback {
            reasons.append(explainChannel(record, at: max(now, nextReminderAt ?? due)))
        }
        return Explanation(userID: record.userID, nextReminderAt: nextReminderAt, reasons: reasons)
    }
}

extension ReminderPolicy {
    static func describe(_ choice: SendTimeChoice, due: Date) -> String {
        func whose(_ own: Bool) -> String { own ? "the user's most active hour" : "the most active hour of all users" }
        func hour(_ value: Int) -> String { (value < 10 ? "0" : "") + "\(value):00" }
        switch choice.why {
        case .dueTime(let heldOut):
            return heldOut
                ? "send time: this user is in the send-time holdout, so reminders go at their due time"
                : "send time: at the due time"
        case .insideActiveHour(let value, let own):
            return "send time: due \(RFC3339.format(due)) is inside \(whose(own)) (\(hour(value)) local): sent then"
        case .movedToActiveHour(let value, let own):
            return
                "send time: due \(RFC3339.format(due)), moved to \(whose(own)) (\(hour(value)) local): \(RFC3339.format(choice.sendAt))"
        case .tooFar(let value, let own):
            return
                "send time: \(whose(own)) (\(hour(value)) local) starts more than maxDelaySeconds after \(RFC3339.format(due)): sent at the due time"
        case .noActivity:
            return "send time: too few reports of this user and none from others yet: sent at the due time"
        }
    }
}
