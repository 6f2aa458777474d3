import Foundation

/// What the scheduler must do for one user at one moment.
public struct RecordFireOutcome: Sendable, Equatable {
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

/// What firing a user's schedule gives: the events and the delta on their record.
public struct ScheduleFireOutcome: Sendable, Equatable {
    /// Events to send: a reminder, a heartbeat, or both.
    public var events: [SinkEvent]
    /// What to record: the delivery (sent or held out), the suppression, the heartbeat.
    public var change: FiredChange
    /// A due reminder was suppressed because notifications are off (recorded once).
    public var suppressed: Bool
    /// A due reminder of a holdout episode was recorded instead of sent.
    public var heldOut: Bool

    /// Whether the record changes and must be stored.
    public var changed: Bool { !change.isEmpty }
}

extension ReminderPolicy {
    /// Acts on everything due for this user at `now`: delivers the reminder (or records its
    /// suppression once when notifications are off) and sends a heartbeat after a silence.
    ///
    /// Calling it again at the same `now` does nothing more: deliveries and suppressions are
    /// recorded in the returned record.
    public func fire(_ record: UserRecord, now: Date, daemonStartedAt: Date?) -> RecordFireOutcome {
        let fired = fire(record.schedule, now: now, daemonStartedAt: daemonStartedAt)
        var record = record
        record.apply(fired.change)
        return RecordFireOutcome(
            record: record, events: fired.events, suppressed: fired.suppressed, heldOut: fired.heldOut)
    }

    /// The same from the user's schedule alone (which is all it reads): what lets the files
    /// backend fire a due user without reading their file. Applying the returned change to the
    /// schedule (or the record it came from) makes a second call at the same `now` do nothing.
    public func fire(_ schedule: UserSchedule, now: Date, daemonStartedAt: Date?) -> ScheduleFireOutcome {
        let now = now.millisecondPrecision
        var change = FiredChange(userID: schedule.userID)
        var events: [SinkEvent] = []
        var suppressed = false
        var heldOut = false

        if let wake = reminderWakeAt(schedule, daemonStartedAt: daemonStartedAt), wake <= now,
            let due = reminderDueAt(schedule)?.millisecondPrecision, let reason = reason(schedule.errors),
            let startedAt = schedule.episodeStartedAt
        {
            let group = schedule.episodeGroup ?? Experiment.defaultGroup
            let sequence = schedule.deliveredCount + 1
            change.episodeStartedAt = startedAt
            // The channel: push, the fallback sinks when no push sink can deliver it, or none
            // (suppressed: notifications off and no fallback sink).
            let route = configuration.channels.decide(
                push: schedule.push, notificationsDeliverable: schedule.notificationsDeliverable,
                lastReportAt: schedule.lastReportAt, now: now)
            if let route, group == Experiment.holdoutGroup {
                // Held out: counted and scheduled exactly like a delivery, never emitted, so the
                // holdout measures what happens without reminders.
                let id = SinkEvent.Reminder.id(userID: schedule.userID, episodeStartedAt: startedAt, sequence: sequence)
                change.delivery = Delivery(
                    id: id, sequence: sequence, dueAt: due, deliveredAt: now, heldOut: true, channel: route.channel,
                    because: route.because)
                heldOut = true
            } else if let route {
                // The reason current now, not the one the episode opened with: the words must
                // match what the user has to fix today. The words are the episode's group's.
                let copy = configuration.experiment.copy(for: group, fallback: configuration.notification.copy)
                    .resolve(reason: reason, locale: schedule.locale, platform: schedule.platform?.copyPlatform)
                let reminder = SinkEvent.Reminder(
                    userID: schedule.userID,
                    title: copy.title,
                    body: copy.body,
                    reason: reason,
                    errors: schedule.errors.members,
                    sequence: sequence,
                    episodeStartedAt: startedAt,
                    dueAt: due,
                    createdAt: now,
                    channel: route.channel,
                    because: route.because,
                    locale: schedule.locale,
                    platform: schedule.platform)
                change.delivery = Delivery(
                    id: reminder.id, sequence: sequence, dueAt: due, deliveredAt: now, channel: route.channel,
                    because: route.because)
                events.append(.reminder(reminder))
            } else if !schedule.isSuppressed {
                change.suppressedAfter = schedule.deliveredCount
                suppressed = true
            }
        }

        if let interval = configuration.heartbeatIntervalSeconds, let due = heartbeatDueAt(schedule), due <= now {
            // After a long silence (or outage) one heartbeat goes out, named by the latest
            // interval boundary that has passed, not one per missed interval.
            let elapsed = now.timeIntervalSince(schedule.lastReportAt)
            let intervals = (elapsed / TimeInterval(interval)).rounded(.down)
            // Rounded like every stored instant: far from 1970 the sum is not a whole
            // millisecond, and the file would read back as another instant.
            let boundary = schedule.lastReportAt.addingTimeInterval(intervals * TimeInterval(interval))
                .millisecondPrecision
            change.heartbeatAt = boundary
            events.append(
                .heartbeat(
                    SinkEvent.Heartbeat(
                        userID: schedule.userID, lastReportAt: schedule.lastReportAt, dueAt: boundary, createdAt: now)))
        }
        if change.delivery == nil && change.suppressedAfter == nil { change.episodeStartedAt = nil }
        return ScheduleFireOutcome(events: events, change: change, suppressed: suppressed, heldOut: heldOut)
    }
}
