import Foundation
import RemindCore

/// What one pass of the scheduler did.
public struct FireSummary: Sendable, Equatable {
    public var users = 0
    public var events: [OutboxEvent] = []
    public var suppressed: [UserID] = []
}

/// A reminder waiting for its time, as `GET /v1/reminders` lists it.
public struct PendingReminder: Sendable, Equatable {
    public var userID: UserID
    public var dueAt: Date
    public var sequence: Int
    public var reason: PermissionErrorType
}

/// Counts for `GET /v1/status` and the metrics.
public struct StoreStatistics: Sendable, Equatable {
    public var users = 0
    public var openEpisodes = 0
    public var pendingReminders = 0
    public var nextReminderAt: Date?
    public var suppressed = 0
    public var quarantined = 0
    public var outboxPending: [String: Int] = [:]
    public var dirtyRecords = 0
    /// Events every sink is done with.
    public var eventsDelivered = 0
    /// Events a sink gave up on, waiting for a replay.
    public var deadLetters = 0
}

extension StateStore {
    /// The earliest wake-up of any user.
    public func nextWakeAt() -> Date? { index.next?.wake }

    /// Fires everything due at `now`, up to `limit` users, and returns the events (already
    /// durable in the log and in the outbox). On a write failure nothing changes and the
    /// users stay due.
    public func fireDue(now: Date, limit: Int = 1024) async throws -> FireSummary {
        let due = index.popDue(now: now, limit: limit)
        guard !due.isEmpty else { return FireSummary() }
        // Users with a report in flight are left for the next pass rather than waited for; the
        // others are owned for the pass, so their files can be read off the actor.
        var owned: [UserID] = []
        var deferred: [UserID] = []
        for userID in due {
            if busy.contains(userID) {
                deferred.append(userID)
            } else {
                busy.insert(userID)
                owned.append(userID)
            }
        }
        defer {
            for userID in owned { release(userID) }
            for userID in deferred { index.set(userID, wake: now) }
        }
        var summary = FireSummary()
        var lines: [[UInt8]] = []
        var records: [(record: UserRecord, json: [UInt8])] = []
        var suppressed: [UserID] = []
        var events: [OutboxEvent] = []
        do {
            let unread = owned.filter { cache[$0] == nil && schedules[$0] != nil }
            let reads = try await Self.read(unread, from: files)
            for (userID, read) in zip(unread, reads) { _ = try adopt(read, of: userID) }
            for userID in owned {
                guard let record = cache[userID] else { continue }
                let outcome = policy.fire(record, now: now, daemonStartedAt: daemonStartedAt)
                guard outcome.changed else {
                    // Nothing to do after all (the wake-up was stale): schedule afresh.
                    let wake = policy.nextWakeAt(record.schedule, daemonStartedAt: daemonStartedAt)
                    index.set(userID, wake: wake.map { $0 <= now ? now.addingTimeInterval(1) : $0 })
                    continue
                }
                let userEvents = outcome.events.map(OutboxEvent.init)
                let (line, json) = logLine(outcome.record, events: userEvents)
                lines.append(line)
                records.append((outcome.record, json))
                events += userEvents
                if outcome.suppressed { suppressed.append(userID) }
            }
            try await logged(lines) {
                for (record, json) in records { install(record, encoded: json) }
                enqueue(events)
                suppressedTotal += suppressed.count
            }
        } catch {
            // Nothing was installed: every user this pass took stays due.
            for userID in owned where schedules[userID] != nil && index.wakes[userID] == nil {
                index.set(userID, wake: now)
            }
            throw error
        }
        summary.users = records.count
        summary.events = events
        summary.suppressed = suppressed
        return summary
    }

    /// Reminders due before `dueBefore` (all when nil), soonest first, at most `limit`.
    public func pendingReminders(dueBefore: Date?, limit: Int) -> [PendingReminder] {
        var pending: [PendingReminder] = []
        schedules.forEach { schedule in
            guard let due = policy.reminderWakeAt(schedule, daemonStartedAt: daemonStartedAt) else { return }
            if let dueBefore, due >= dueBefore { return }
            pending.append(
                PendingReminder(
                    userID: schedule.userID, dueAt: due, sequence: schedule.deliveredCount + 1,
                    reason: schedule.reason ?? .locationNotAuthorizedAlways))
        }
        pending.sort { $0.dueAt < $1.dueAt || ($0.dueAt == $1.dueAt && $0.userID < $1.userID) }
        return Array(pending.prefix(limit))
    }

    public func statistics() -> StoreStatistics {
        var statistics = StoreStatistics()
        statistics.users = schedules.count
        schedules.forEach { schedule in
            if schedule.episodeStartedAt != nil { statistics.openEpisodes += 1 }
            if let due = policy.reminderWakeAt(schedule, daemonStartedAt: daemonStartedAt) {
                statistics.pendingReminders += 1
                if statistics.nextReminderAt == nil || due < statistics.nextReminderAt! {
                    statistics.nextReminderAt = due
                }
            }
        }
        statistics.suppressed = suppressedTotal
        statistics.quarantined = files.quarantinedCount
        for sink in outbox.sinks { statistics.outboxPending[sink] = outbox.pending(sink: sink) }
        statistics.dirtyRecords = dirty.count
        statistics.eventsDelivered = eventsCompleted
        statistics.deadLetters = deadLetters.count
        return statistics
    }

    /// Applies a new configuration: every due time is recomputed.
    public func setPolicy(_ policy: ReminderPolicy) {
        self.policy = policy
        index.removeAll()
        schedules.forEach { schedule in
            index.set(schedule.userID, wake: policy.nextWakeAt(schedule, daemonStartedAt: daemonStartedAt))
        }
        scheduleChanged.signal()
    }
}
