import Foundation

/// The reminder policy (README "What remindd does") as pure functions of (user record, configuration, now).
///
/// It never reads a clock, a file or the network: callers pass `now` and the time the daemon
/// started, and do whatever I/O the returned events and records call for. That is what lets
/// every rule be tested with exact instants and no sleeping.
public struct ReminderPolicy: Sendable {
    public var configuration: PolicyConfiguration

    public init(configuration: PolicyConfiguration = .init()) {
        self.configuration = configuration
    }

    var delay: TimeInterval { TimeInterval(configuration.notification.notificationTriggerDelay) }

    /// The reason a reminder to a user with these errors carries: the first that
    /// `notification.remindFor` lists; nil when none is present (no episode is open).
    public func reason(_ errors: PermissionErrorSet) -> PermissionErrorType? {
        errors.intersection(configuration.notification.remindFor).first
    }

    public func reason(_ permissions: Permissions) -> PermissionErrorType? {
        permissions.reminderReason(remindFor: configuration.notification.remindFor)
    }

    /// Whether a state has a reminding error: what opens an episode and keeps it open.
    func isReminding(_ permissions: Permissions) -> Bool { reason(permissions) != nil }

    /// Each configured service's state under `permissions`, in configuration order.
    public func services(_ permissions: Permissions) -> [(name: String, status: ServiceStatus)] {
        let conditions = permissions.conditions
        return configuration.services.map { ($0.name, $0.status(conditions)) }
    }

    /// The user's fixed jitter offset, in seconds.
    public func jitter(for userID: UserID) -> TimeInterval {
        TimeInterval(StableHash.offset(for: userID.rawValue, salt: "jitter", window: configuration.jitterSeconds))
    }

    /// The user's place in the catch-up spread after a restart, in seconds.
    public func catchUpOffset(for userID: UserID) -> TimeInterval {
        TimeInterval(
            StableHash.offset(for: userID.rawValue, salt: "catch-up", window: configuration.catchUpSpreadSeconds))
    }

    /// Whether the open episode may still get a reminder: not when a single reminder was sent
    /// and recurring is off, nor once `maxRemindersPerEpisode` were delivered.
    func mayRemind(deliveredCount delivered: Int) -> Bool {
        if delivered >= 1 && !configuration.notification.showRecurringNotification { return false }
        if let maximum = configuration.maxRemindersPerEpisode, delivered >= maximum { return false }
        return true
    }

    /// The due time before jitter and quiet hours: the episode start plus the delay for the
    /// first reminder; for each one after it, the last delivery (less the user's jitter, which
    /// it already carried) plus the delay.
    func unshiftedDueAt(_ schedule: UserSchedule) -> Date? {
        if let last = schedule.lastDeliveredAt, schedule.deliveredCount > 0 {
            return last.addingTimeInterval(delay - jitter(for: schedule.userID))
        }
        return schedule.episodeStartedAt?.addingTimeInterval(delay)
    }

    /// When the next reminder of the open episode is due, or nil when none will be: Always
    /// access holds, or the series has ended.
    ///
    /// The send time (`notification.sendTime`) moves the due time to the user's active hour
    /// first. Quiet hours move the unjittered time out of the window then and the user's jitter
    /// is added after, so users due in the night are spread after the window's end rather than
    /// all reminded in its first second; a jitter that lands in the window moves to its end.
    public func reminderDueAt(_ schedule: UserSchedule) -> Date? {
        // An episode whose errors a reload took out of `remindFor` waits for the next report,
        // which closes it; until then it has nothing to remind of.
        guard schedule.episodeStartedAt != nil, reason(schedule.errors) != nil,
            mayRemind(deliveredCount: schedule.deliveredCount), let due = unshiftedDueAt(schedule)
        else { return nil }
        let sent = configuration.notification.sendTime == .due ? due : sendTime(for: due, schedule).sendAt
        let released = quietHoursRelease(sent, timeZone: schedule.timeZone)
        return quietHoursRelease(released.addingTimeInterval(jitter(for: schedule.userID)), timeZone: schedule.timeZone)
    }

    public func reminderDueAt(_ record: UserRecord) -> Date? { reminderDueAt(record.schedule) }

    /// `date` moved out of the quiet hours in the user's time zone; unchanged when there are no
    /// quiet hours or the user's time zone is unknown.
    public func quietHoursRelease(_ date: Date, timeZone: String?) -> Date {
        guard let quietHours = configuration.quietHours, let timeZone, let zone = TimeZoneCache.zone(timeZone) else {
            return date
        }
        return quietHours.release(date, in: zone).millisecondPrecision
    }

    /// When the scheduler must next look at the reminder of this user, or nil when nothing
    /// but a report can change it (no open episode, series ended, or suppressed and waiting
    /// for notifications to come back).
    ///
    /// A reminder that came due before `daemonStartedAt` is a catch-up: it waits for the
    /// user's place in `catchUpSpreadSeconds` after start-up.
    public func reminderWakeAt(_ schedule: UserSchedule, daemonStartedAt: Date?) -> Date? {
        guard let due = reminderDueAt(schedule) else { return nil }
        if schedule.isSuppressed {
            // Recorded once; it goes out as soon as a report makes notifications deliverable,
            // or at once to a fallback sink configured since.
            return schedule.notificationsDeliverable || configuration.channels.hasFallback ? due : nil
        }
        if let daemonStartedAt, due < daemonStartedAt, configuration.catchUpSpreadSeconds > 0 {
            return max(due, daemonStartedAt.addingTimeInterval(catchUpOffset(for: schedule.userID)))
        }
        return due
    }

    public func reminderWakeAt(_ record: UserRecord, daemonStartedAt: Date?) -> Date? {
        reminderWakeAt(record.schedule, daemonStartedAt: daemonStartedAt)
    }

    /// When the next heartbeat is due, or nil when heartbeats are off.
    public func heartbeatDueAt(_ schedule: UserSchedule) -> Date? {
        guard let interval = configuration.heartbeatIntervalSeconds else { return nil }
        if let last = schedule.lastHeartbeatAt, last >= schedule.lastReportAt {
            return last.addingTimeInterval(TimeInterval(interval))
        }
        return schedule.lastReportAt.addingTimeInterval(TimeInterval(interval))
    }

    public func heartbeatDueAt(_ record: UserRecord) -> Date? { heartbeatDueAt(record.schedule) }

    /// The earliest moment at which `fire` has something to do for this user.
    public func nextWakeAt(_ schedule: UserSchedule, daemonStartedAt: Date?) -> Date? {
        nextWakeAt(schedule, reminderWakeAt: reminderWakeAt(schedule, daemonStartedAt: daemonStartedAt))
    }

    /// The same, for a caller that has the reminder's wake-up at hand already.
    public func nextWakeAt(_ schedule: UserSchedule, reminderWakeAt reminder: Date?) -> Date? {
        switch (reminder, heartbeatDueAt(schedule)) {
        case (let reminder?, let heartbeat?): min(reminder, heartbeat)
        case (let reminder?, nil): reminder
        case (nil, let heartbeat?): heartbeat
        case (nil, nil): nil
        }
    }

    public func nextWakeAt(_ record: UserRecord, daemonStartedAt: Date?) -> Date? {
        nextWakeAt(record.schedule, daemonStartedAt: daemonStartedAt)
    }
}
