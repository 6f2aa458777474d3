import Foundation
import Logging
import PostgresNIO
import RemindCore
import RemindStore

extension PostgresStateStore {
    /// The earliest wake-up of any user in the database; nil also while it cannot be asked
    /// (the scheduler then looks again within its maximum sleep).
    public func nextWakeAt() async -> Date? {
        do {
            return try await database {
                var earliest: Date?
                for try await wake in try await self.client.query(
                    "SELECT min(wake_at) FROM remindd_users", logger: self.logger
                ).decode(Date?.self) {
                    earliest = wake
                }
                return earliest
            }
        } catch {
            return nil
        }
    }

    /// Claims up to `limit` due users with `FOR UPDATE SKIP LOCKED` and records their fires
    /// in the same transaction: what another instance (or a report) holds is left for later.
    public func fireDue(
        now: Date, limit: Int, pass: @escaping @Sendable ([UserSchedule], ReminderPolicy) -> FirePass
    ) async throws -> FireSummary {
        let (policy, started) = (self.policy, daemonStartedAt)
        let summary = try await transaction { connection -> FireSummary in
            let rows = try await connection.query(
                """
                SELECT user_id, doc, \(unescaped: Self.countedColumns) FROM remindd_users
                WHERE wake_at <= \(now) ORDER BY wake_at LIMIT \(limit) FOR UPDATE SKIP LOCKED
                """, logger: self.logger)
            var due: [(UserID, String, CountedColumns)] = []
            for try await (user, text, open, pending, conditions, hour) in rows.decode(
                (String, String, Bool, Bool, Int16, Int16?).self)
            {
                due.append((try UserID(user), text, CountedColumns((open, pending, conditions, hour))))
            }
            // The documents alone: a fire needs the newest history entry, which they keep, and
            // leaves the older ones as they are.
            var stored: [UserID: StoredRow] = [:]
            var schedules: [UserSchedule] = []
            for (userID, text, counted) in due {
                let document = StoredDocument((text, nil, []))
                guard let record = try await self.decodeOrQuarantine(document, userID: userID, on: connection)?.record
                else { continue }
                stored[userID] = StoredRow(record: record, counted: counted, older: nil)
                schedules.append(record.schedule)
            }
            let decided = pass(schedules, policy)
            let stale = decided.stale.map { ($0.userID.rawValue, $0.wakeAt) }
            var changed: [(UserRecord, ScheduleColumns)] = []
            for fired in decided.fired {
                guard var record = stored[fired.change.userID]?.record else { continue }
                record.apply(fired.change)
                changed.append((record, ScheduleColumns(record.schedule, policy: policy, daemonStartedAt: started)))
            }
            let events = decided.events
            try await self.write(changed, before: stored, on: connection)
            if !stale.isEmpty {
                try await connection.query(
                    """
                    UPDATE remindd_users u
                    SET wake_at = CASE WHEN c.wake_at < 0 THEN NULL ELSE to_timestamp(c.wake_at) END
                    FROM unnest(\(stale.map(\.0))::text[], \(stale.map { Self.epoch($0.1) })::float8[])
                        AS c(user_id, wake_at)
                    WHERE u.user_id = c.user_id
                    """, logger: self.logger)
            }
            try await self.enqueue(events, on: connection)
            try await self.notify(wake: false, events: !events.isEmpty, on: connection)
            return FireSummary(decided)
        }
        if summary.users > 0 || !summary.suppressed.isEmpty {
            state.withLock { $0.suppressed += summary.suppressed.count }
            changed(wakeEarlier: false, events: !summary.events.isEmpty)
        }
        return summary
    }

    public func pendingReminders(dueBefore: Date?, limit: Int) async -> [ScheduledReminder] {
        let query: PostgresQuery =
            if let dueBefore {
                """
                SELECT user_id, reminder_at, next_sequence, reason FROM remindd_users
                WHERE reminder_at IS NOT NULL AND reminder_at < \(dueBefore)
                ORDER BY reminder_at, user_id LIMIT \(limit)
                """
            } else {
                """
                SELECT user_id, reminder_at, next_sequence, reason FROM remindd_users
                WHERE reminder_at IS NOT NULL ORDER BY reminder_at, user_id LIMIT \(limit)
                """
            }
        do {
            return try await database {
                var pending: [ScheduledReminder] = []
                for try await (user, due, sequence, reason) in try await self.client.query(query, logger: self.logger)
                    .decode((String, Date, Int, String?).self)
                {
                    pending.append(
                        ScheduledReminder(
                            userID: try UserID(user), dueAt: due.millisecondPrecision, sequence: sequence,
                            reason: reason.flatMap(PermissionErrorType.init(rawValue:)) ?? .locationNotAuthorizedAlways)
                    )
                }
                return pending
            }
        } catch {
            logger.error("pending reminders: \(error)")
            return []
        }
    }

    /// A new configuration. When what the scheduling columns depend on changed, every row's
    /// columns are recomputed; otherwise nothing in the database moves.
    public func setPolicy(_ policy: ReminderPolicy) async {
        state.withLock {
            $0.policy = policy
            $0.statistics = nil
        }
        do {
            // A pass over every row: bounded by an hour, not by a request's wait.
            try await database(timeout: .seconds(3600)) { try await self.recomputeIfPolicyChanged() }
        } catch {
            logger.error("due times not recomputed for the new configuration (retried at next start): \(error)")
        }
        scheduleChanged.signal()
    }

    /// Recomputes every row's columns when the stored fingerprint is not this policy's, in
    /// batches of locked rows (a report in between is not overwritten by a stale column),
    /// then stores the fingerprint. One instance at a time: instances starting together with
    /// a new configuration recompute once, the others find the fingerprint current.
    func recomputeIfPolicyChanged() async throws {
        let policy = self.policy
        let fingerprint = ScheduleColumns.fingerprint(policy)
        let started = daemonStartedAt
        let logger = self.logger
        // Waiting for the lock lasts as long as another instance's recompute; each batch after
        // it is short, but a million users' are not.
        try await client.withConnection { connection in
            try await connection.withoutStatementTimeout(logger: logger) {
                try await connection.query(
                    "SELECT pg_advisory_lock(\(PostgresSchema.lockSpace), \(PostgresSchema.recomputeLock))",
                    logger: logger)
                do {
                    try await Self.recompute(
                        on: connection, policy: policy, fingerprint: fingerprint, daemonStartedAt: started,
                        logger: logger)
                } catch {
                    _ = try? await connection.query(
                        "SELECT pg_advisory_unlock(\(PostgresSchema.lockSpace), \(PostgresSchema.recomputeLock))",
                        logger: logger)
                    throw error
                }
                try await connection.query(
                    "SELECT pg_advisory_unlock(\(PostgresSchema.lockSpace), \(PostgresSchema.recomputeLock))",
                    logger: logger)
            }
        }
    }

    private static func recompute(
        on connection: PostgresConnection, policy: ReminderPolicy, fingerprint: String, daemonStartedAt: Date,
        logger: Logger
    ) async throws {
        var stored: String?
        for try await value in try await connection.query(
            "SELECT value FROM remindd_meta WHERE key = 'schedule_policy'", logger: logger
        ).decode(String.self) {
            stored = value
        }
        guard stored != fingerprint else { return }
        var after = ""
        var total = 0
        while true {
            let (count, last) = try await connection.withTransaction(logger: logger) { connection -> (Int, String?) in
                let rows = try await connection.query(
                    """
                    SELECT user_id, doc, reminder_at IS NOT NULL FROM remindd_users WHERE user_id > \(after)
                    ORDER BY user_id LIMIT 1000 FOR UPDATE
                    """, logger: logger)
                var batch: [(String, String, Bool)] = []
                for try await row in rows.decode((String, String, Bool).self) { batch.append(row) }
                var counts = CounterDeltas()
                var users: [String] = []
                // Arrays of optionals do not bind: a negative number stands for null.
                var wakes: [Double] = []
                var reminders: [Double] = []
                var sequences: [Int] = []
                var reasons: [String] = []
                for (user, text, pending) in batch {
                    guard let record = try? UserRecord(json: Array(text.utf8)) else { continue }
                    let columns = ScheduleColumns(record.schedule, policy: policy, daemonStartedAt: daemonStartedAt)
                    if pending != (columns.reminderAt != nil) {
                        counts.add(CounterDeltas.pendingReminders, columns.reminderAt != nil ? 1 : -1)
                    }
                    users.append(user)
                    wakes.append(epoch(columns.wakeAt))
                    reminders.append(epoch(columns.reminderAt))
                    sequences.append(columns.nextSequence)
                    reasons.append(columns.reason)
                }
                try await connection.query(
                    """
                    UPDATE remindd_users u
                    SET wake_at = CASE WHEN c.wake_at < 0 THEN NULL ELSE to_timestamp(c.wake_at) END,
                        reminder_at = CASE WHEN c.reminder_at < 0 THEN NULL ELSE to_timestamp(c.reminder_at) END,
                        next_sequence = c.next_sequence, reason = c.reason
                    FROM unnest(\(users)::text[], \(wakes)::float8[], \(reminders)::float8[],
                        \(sequences)::integer[], \(reasons)::text[])
                        AS c(user_id, wake_at, reminder_at, next_sequence, reason)
                    WHERE u.user_id = c.user_id
                    """, logger: logger)
                try await addCounts(counts, on: connection, logger: logger)
                return (batch.count, batch.last?.0)
            }
            total += count
            guard let last, count == 1000 else { break }
            after = last
        }
        try await connection.query(
            """
            INSERT INTO remindd_meta (key, value) VALUES ('schedule_policy', \(fingerprint))
            ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value
            """, logger: logger)
        if total > 0 { logger.notice("due times recomputed for \(total) users (the schedule policy changed)") }
    }
}
