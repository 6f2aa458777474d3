import Foundation

/// What the scheduler must do for one user at one moment.
public struct FireOutcome: Sendable, Equatable {
    public var record: UserRecord
    /// Events to send: a reminder, a heartbeat, or both.
    public var events: [SinkEvent]
    /// A due reminder was suppressed because notifications are off (recorded once).
    public var suppressed: Bool
    /// A due reminder of a holdout episode was recorded instead of sent.
    public var heldOut: Bool = false

    /// Whether the record changed and must be stored.
    public var changed: Bool { !events.isEmpty || suppressed || heldOut }
}

extension ReminderPolicy {
    /// Acts on everything due for this user at `now`: delivers the reminder (or records its
    /// suppression once when notifications are off) and sends a heartbeat after a silence.
    ///
    /// Calling it again at the same `now` does nothing more: deliveries and suppressions are
    /// recorded in the returned record.
    public func fire(_ record: UserRecord, now: Date, daemonStartedAt: Date?) -> FireOutcome {
        let now = now.millisecondPrecision
        var record = record
        var events: [SinkEvent] = []
        var suppressed = false
        var heldOut = false

        if let wake = reminderWakeAt(record, daemonStartedAt: daemonStartedAt), wake <= now,
            let due = reminderDueAt(record)?.millisecondPrecision, let permissions = record.permissions,
            let reason = reason(permissions), var episode = record.openEpisode
        {
            if permissions.notifications.isDeliverable, episode.group == Experiment.holdoutGroup {
                // Held out: counted and scheduled exactly like a delivery, never emitted, so the
                // holdout measures what happens without reminders.
                let sequence = episode.deliveries.count + 1
                let id = SinkEvent.Reminder.id(
                    userID: record.userID, episodeStartedAt: episode.startedAt, sequence: sequence)
                episode.deliveries.append(
                    Delivery(id: id, sequence: sequence, dueAt: due, deliveredAt: now, heldOut: true))
                episode.isSuppressed = false
                heldOut = true
            } else if permissions.notifications.isDeliverable {
                let sequence = episode.deliveries.count + 1
                // The reason current now, not the one the episode opened with: the words must
                // match what the user has to fix today. The words are the episode's group's.
                let copy = configuration.experiment.copy(for: episode.group, fallback: configuration.notification.copy)
                    .resolve(reason: reason, locale: record.device.locale)
                let reminder = SinkEvent.Reminder(
                    userID: record.userID,
                    title: copy.title,
                    body: copy.body,
                    reason: reason,
                    errors: permissions.errors,
                    sequence: sequence,
                    episodeStartedAt: episode.startedAt,
                    dueAt: due,
                    createdAt: now)
                episode.deliveries.append(Delivery(id: reminder.id, sequence: sequence, dueAt: due, deliveredAt: now))
                episode.isSuppressed = false
                events.append(.reminder(reminder))
            } else if !episode.isSuppressed {
                episode.isSuppressed = true
                episode.suppressedCount += 1
                suppressed = true
            }
            record.episodes[0] = episode
        }

        if let interval = configuration.heartbeatIntervalSeconds, let due = heartbeatDueAt(record), due <= now {
            // After a long silence (or outage) one heartbeat goes out, named by the latest
            // interval boundary that has passed, not one per missed interval.
            let elapsed = now.timeIntervalSince(record.lastReportAt)
            let intervals = (elapsed / TimeInterval(interval)).rounded(.down)
            // Rounded like every stored instant: far from 1970 the sum is not a whole
            // millisecond, and the file would read back as another instant.
            let boundary = record.lastReportAt.addingTimeInterval(intervals * TimeInterval(interval))
                .millisecondPrecision
            record.lastHeartbeatAt = boundary
            events.append(
                .heartbeat(
                    SinkEvent.Heartbeat(
                        userID: record.userID, lastReportAt: record.lastReportAt, dueAt: boundary, createdAt: now)))
        }
        return FireOutcome(record: record, events: events, suppressed: suppressed, heldOut: heldOut)
    }
}
