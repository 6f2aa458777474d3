import Foundation
import RemindCore

extension FileStateStore {
    public func nextWakeAt() -> Date? { schedules.nextWake }

    /// Fires everything due at `now`, up to `limit` users, and returns the events (already
    /// durable in the log and in the outbox). On a write failure nothing changes and the
    /// users stay due.
    ///
    /// A user whose record is not in memory is fired from their schedule row, which holds all
    /// that `fire` reads: the pass logs one `fired` entry with every due user's `FiredChange`
    /// and the events, and the checkpointer folds the changes of users not in memory into their
    /// files later (`PendingFires`). Reading each due user's file first bounded a burst of due
    /// reminders by the disk (`make bench` W2). A record in memory takes the change at once (it
    /// is dirty, so the next checkpoint writes it); so does a user with repeats not yet folded,
    /// whose file is read first because their row may lag their record. Either way a fire is a
    /// logged `FiredChange`, never a new revision of the record (`RecordDelta`).
    public func fireDue(
        now: Date, limit: Int, pass: @escaping @Sendable ([UserSchedule], ReminderPolicy) -> FirePass
    ) async throws -> FireSummary {
        let due = schedules.popDue(now: now, limit: limit)
        guard !due.isEmpty else { return FireSummary() }
        let policy = self.policy
        // Users with a report in flight are left for the next pass rather than waited for; the
        // others are owned for the pass, so their files can be read off the actor.
        var owned: [UserID] = []
        var deferred: [UserID] = []
        for userID in due {
            if lockUser(userID) {
                owned.append(userID)
            } else {
                deferred.append(userID)
            }
        }
        defer {
            for userID in owned { unlockUser(userID) }
            for userID in deferred { schedules.wake(userID, at: now) }
        }
        var records: [UserRecord] = []
        var rows: [(change: FiredChange, schedule: UserSchedule)] = []
        do {
            let unread = owned.filter { cache[$0] == nil && schedules[$0] != nil && pendingRepeats.hasPending($0) }
            let reads = try await files.read(unread, on: io)
            for (userID, read) in zip(unread, reads) { _ = try adopt(read, of: userID) }
            // The record with its repeats folded in when in memory, else the schedule row.
            var cached: [UserID: UserRecord] = [:]
            var taken: [UserSchedule] = []
            for userID in owned {
                let record = cache[userID].map { materialized($0) }
                guard let schedule = record?.schedule ?? schedules[userID] else { continue }
                cached[userID] = record
                taken.append(schedule)
            }
            let decided = pass(taken, policy)
            for stale in decided.stale { schedules.wake(stale.userID, at: stale.wakeAt) }
            for fired in decided.fired {
                let userID = fired.change.userID
                if var record = cached[userID] {
                    record.apply(fired.change)
                    records.append(record)
                } else if var next = schedules[userID] {
                    next.apply(fired.change)
                    rows.append((fired.change, next))
                }
            }
            let changes = decided.fired.map(\.change)
            let events = route(decided.events)
            let suppressed = decided.suppressed
            let lines = changes.isEmpty ? [] : [LogEntry.fired(changes, events: events).line]
            try await logged(lines) {
                // Written by the next checkpoint with the rest of the dirty records.
                for record in records { install(record) }
                for (change, schedule) in rows {
                    pendingFires.add(change)
                    if schedules.set(schedule) { scheduleChanged.signal() }
                }
                enqueue(events)
                suppressedTotal += suppressed.count
            }
            return FireSummary(decided)
        } catch {
            // Nothing was installed: every user this pass took stays due.
            for userID in owned where schedules[userID] != nil && !schedules.hasWake(userID) {
                schedules.wake(userID, at: now)
            }
            throw error
        }
    }

    /// Reminders due before `dueBefore` (all when nil), soonest first, at most `limit`.
    public func pendingReminders(dueBefore: Date?, limit: Int) -> [ScheduledReminder] {
        schedules.pendingReminders(dueBefore: dueBefore, limit: limit)
    }

    /// The status counts, from counters kept current (no visit of every user).
    public func statistics() -> StoreStatistics {
        var statistics = schedules.statistics()
        statistics.suppressed = suppressedTotal
        // An operator may clear the directory: it is listed, not counted (it holds few files).
        statistics.quarantined = files.quarantinedCount
        for sink in outbox.sinks { statistics.outboxPending[sink] = outbox.pending(sink: sink) }
        statistics.dirtyRecords = cache.dirtyCount
        statistics.eventsDelivered = eventsCompleted
        statistics.deadLetters = deadLetterList.count
        statistics.logBytes = wal.bytesWritten
        return statistics
    }

    /// Applies a new configuration: every due time is recomputed.
    public func setPolicy(_ policy: ReminderPolicy) {
        schedules.setPolicy(policy)
        scheduleChanged.signal()
    }
}
