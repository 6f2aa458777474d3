import Foundation

/// What a backend keeps beside a user's schedule to find them without reading it: when the
/// scheduler must look at them next, and their pending reminder. The policy computes it
/// (`ReminderPolicy.index`); each backend stores it as suits it (the files backend's packed
/// rows and wake-up heap, PostgreSQL's indexed columns) and recomputes it when the policy's
/// timing changes.
public struct ScheduleIndex: Sendable, Equatable {
    /// The next wake-up: a reminder, a heartbeat, or the end of a quiet hour; nil for never.
    public var wakeAt: Date?
    /// When the next reminder is due; nil when none is pending.
    public var reminderAt: Date?
    /// The sequence number the next reminder carries.
    public var nextSequence: Int
    /// The reason the next reminder names.
    public var reason: PermissionErrorType

    public init(wakeAt: Date?, reminderAt: Date?, nextSequence: Int, reason: PermissionErrorType) {
        self.wakeAt = wakeAt
        self.reminderAt = reminderAt
        self.nextSequence = nextSequence
        self.reason = reason
    }
}

extension ReminderPolicy {
    /// The index of `schedule` under this policy: the wake-up follows from the reminder's due
    /// time (and the heartbeat's), so both are computed here, once, for every backend.
    public func index(_ schedule: UserSchedule, daemonStartedAt: Date?) -> ScheduleIndex {
        let reminder = reminderWakeAt(schedule, daemonStartedAt: daemonStartedAt)
        return ScheduleIndex(
            wakeAt: nextWakeAt(schedule, reminderWakeAt: reminder), reminderAt: reminder,
            nextSequence: schedule.deliveredCount + 1, reason: reason(schedule.errors) ?? .locationNotAuthorizedAlways)
    }
}
