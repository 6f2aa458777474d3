import Foundation
import RemindCore

/// Every user's schedule with their next wake-up, and the status counts kept current as
/// schedules change, so that `/v1/status`, `/metrics` and `STATUS=` never visit every user.
///
/// The counts are what the rows say: each row carries whether it counts a pending reminder,
/// so replacing or removing a schedule adjusts the totals by exactly what the old row added.
struct Schedules {
    private(set) var table: PackedSchedules
    private var wakes = WakeUpHeap()
    private(set) var policy: ReminderPolicy
    let daemonStartedAt: Date
    private(set) var openEpisodes = 0
    private(set) var pendingReminders = 0
    /// Users per combination of service conditions: any `services` configuration's counts
    /// follow from these 64 numbers, so a reload that changes the services needs no pass.
    private(set) var usersByConditions = ConditionCounts()
    /// The earliest reminder due time and whose it is. Without heartbeats it is the earliest
    /// wake-up; with them it is found by a scan, remembered until the user holding it changes.
    private var earliestReminder: EarliestReminder = .unknown

    private enum EarliestReminder {
        case unknown
        case known(userID: UserID, dueAt: Date)
        case none
    }

    init(table: consuming PackedSchedules, policy: ReminderPolicy, daemonStartedAt: Date) {
        self.table = table
        self.policy = policy
        self.daemonStartedAt = daemonStartedAt
        rebuild()
    }

    var count: Int { table.count }

    subscript(userID: UserID) -> UserSchedule? { table[userID] }

    /// The earliest wake-up of any user.
    var nextWake: Date? {
        mutating get { wakes.next(in: table)?.wake }
    }

    /// Stores a user's schedule and wake-up; true when that made the earliest wake-up earlier.
    @discardableResult
    mutating func set(_ schedule: UserSchedule) -> Bool {
        let index = policy.index(schedule, daemonStartedAt: daemonStartedAt)
        let reminder = index.reminderAt
        let previous = table.put(schedule, pendingReminder: reminder != nil)
        count(previous, sign: -1)
        count(
            .init(
                openEpisode: schedule.episodeStartedAt != nil, pendingReminder: reminder != nil,
                conditions: schedule.conditions), sign: 1)
        noteReminder(of: schedule.userID, dueAt: reminder)
        let wake = index.wakeAt
        let earliest = nextWake
        setWake(schedule.userID, wake)
        guard let wake else { return false }
        return earliest.map { wake < $0 } ?? true
    }

    /// A repeated report moved the user's `lastReportAt` and nothing else: only a heartbeat's
    /// due time depends on it, so without heartbeats the row alone changes.
    mutating func noteRepeat(of userID: UserID, lastReportAt: Date) {
        guard policy.configuration.heartbeatIntervalSeconds != nil else {
            table.setLastReportAt(lastReportAt, of: userID)
            return
        }
        guard var schedule = table[userID] else { return }
        schedule.lastReportAt = lastReportAt
        // A later report moves the heartbeat later, never earlier: no one need be woken.
        set(schedule)
    }

    mutating func remove(_ userID: UserID) {
        // The row goes with its wake-up: the heap's entries for it are stale from here.
        count(table.remove(userID), sign: -1)
        noteReminder(of: userID, dueAt: nil)
    }

    /// Removes and returns up to `limit` users whose wake-up is at or before `now`; each gets a
    /// wake-up again when its schedule is set (or `wake(_:at:)` is called).
    mutating func popDue(now: Date, limit: Int) -> [UserID] {
        wakes.popDue(now: now, limit: limit, in: &table)
    }

    /// Sets a user's wake-up directly: a user left for the next pass, or a stale one at the
    /// time the fire pass gave.
    mutating func wake(_ userID: UserID, at date: Date?) {
        setWake(userID, date)
    }

    /// Stores a known user's wake-up in their row and, when there is one, in the heap.
    private mutating func setWake(_ userID: UserID, _ wake: Date?) {
        guard table.setWake(wake, of: userID), let wake else { return }
        wakes.push(userID, wake: wake)
        // Keep stale entries from piling up when wake-ups move often.
        if wakes.entries > 2 * table.count + 1024 { wakes.rebuild(from: table) }
    }

    func hasWake(_ userID: UserID) -> Bool { table.wake(of: userID) != nil }

    /// A new configuration: every due time and count is recomputed.
    mutating func setPolicy(_ policy: ReminderPolicy) {
        self.policy = policy
        rebuild()
    }

    /// The earliest reminder due time of any user.
    mutating func nextReminderAt() -> Date? {
        if policy.configuration.heartbeatIntervalSeconds == nil { return nextWake }
        if case .unknown = earliestReminder {
            var earliest: (UserID, Date)?
            table.forEach { schedule in
                guard let due = policy.reminderWakeAt(schedule, daemonStartedAt: daemonStartedAt) else { return }
                if earliest.map({ due < $0.1 }) ?? true { earliest = (schedule.userID, due) }
            }
            earliestReminder = earliest.map { .known(userID: $0.0, dueAt: $0.1) } ?? EarliestReminder.none
        }
        if case .known(_, let dueAt) = earliestReminder { return dueAt }
        return nil
    }

    /// The status counts these schedules keep; the store adds its own (outbox, dead letters).
    mutating func statistics() -> StoreStatistics {
        var statistics = StoreStatistics()
        statistics.users = count
        statistics.openEpisodes = openEpisodes
        statistics.pendingReminders = pendingReminders
        statistics.usersByConditions = usersByConditions
        statistics.nextReminderAt = nextReminderAt()
        return statistics
    }

    /// Reminders due before `dueBefore` (all when nil), soonest first, at most `limit`.
    func pendingReminders(dueBefore: Date?, limit: Int) -> [ScheduledReminder] {
        var pending: [ScheduledReminder] = []
        table.forEach { schedule in
            let index = policy.index(schedule, daemonStartedAt: daemonStartedAt)
            guard let due = index.reminderAt else { return }
            if let dueBefore, due >= dueBefore { return }
            pending.append(
                ScheduledReminder(
                    userID: schedule.userID, dueAt: due, sequence: index.nextSequence, reason: index.reason))
        }
        pending.sort(by: ScheduledReminder.soonerThan)
        return Array(pending.prefix(limit))
    }

    private mutating func count(_ counted: PackedSchedules.Counted?, sign: Int) {
        guard let counted else { return }
        if counted.openEpisode { openEpisodes += sign }
        if counted.pendingReminder { pendingReminders += sign }
        usersByConditions[counted.conditions] += sign
    }

    /// Keeps the remembered earliest reminder right after one user's due time changed.
    private mutating func noteReminder(of userID: UserID, dueAt: Date?) {
        switch earliestReminder {
        case .unknown:
            return
        case .none:
            if let dueAt { earliestReminder = .known(userID: userID, dueAt: dueAt) }
        case .known(let holder, let earliest):
            if let dueAt, dueAt <= earliest {
                earliestReminder = .known(userID: userID, dueAt: dueAt)
            } else if holder == userID {
                // The earliest moved later or went away: who is earliest now takes a scan.
                earliestReminder = .unknown
            }
        }
    }

    /// One pass over every row: marks, counts and wake-ups from the current policy.
    private mutating func rebuild() {
        let policy = policy
        let started = daemonStartedAt
        var open = 0
        var pending = 0
        var byConditions = ConditionCounts()
        table.markPending { schedule in
            let index = policy.index(schedule, daemonStartedAt: started)
            byConditions[schedule.conditions] += 1
            if schedule.episodeStartedAt != nil { open += 1 }
            if index.reminderAt != nil { pending += 1 }
            return (index.reminderAt != nil, index.wakeAt)
        }
        wakes.rebuild(from: table)
        openEpisodes = open
        pendingReminders = pending
        usersByConditions = byConditions
        earliestReminder = .unknown
    }
}
