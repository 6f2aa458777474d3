import Foundation
import PostgresNIO
import RemindCore
import RemindStore

extension PostgresStateStore {
    /// The counts of the whole database. They are counted by the server and reused for up to
    /// `statisticsMaximumAge` (daemon-wide counts may lag 5 s, docs/operations.md); a change made
    /// through this instance counts at once. While the database cannot be asked, the last
    /// counts stand.
    public func statistics() async -> StoreStatistics {
        let now = ContinuousClock.now
        let cached = state.withLock { state -> StoreStatistics? in
            guard let statistics = state.statistics, let at = state.statisticsAt,
                now - at < options.statisticsMaximumAge
            else { return nil }
            return statistics
        }
        if let cached { return cached }
        do {
            var statistics = try await database { try await self.countAll() }
            state.withLock {
                statistics.suppressed = $0.suppressed
                statistics.eventsDelivered = $0.delivered
                $0.statistics = statistics
                $0.statisticsAt = now
            }
            return statistics
        } catch {
            return state.withLock { $0.statistics } ?? StoreStatistics()
        }
    }

    /// The users' counts from the counter rows (`CounterDeltas`), the next reminder from its
    /// index; the outbox, dead letters and quarantine are small tables (the outbox is emptied
    /// as events are delivered) and counted as they are, which costs less than a counter row
    /// every completion would have to wait for.
    private func countAll() async throws -> StoreStatistics {
        var statistics = StoreStatistics()
        for try await (name, value) in try await client.query(
            "SELECT name, sum(value)::int8 FROM remindd_counters GROUP BY name", logger: logger
        ).decode((String, Int).self) {
            switch name {
            case CounterDeltas.users: statistics.users = value
            case CounterDeltas.openEpisodes: statistics.openEpisodes = value
            case CounterDeltas.pendingReminders: statistics.pendingReminders = value
            default:
                if name.hasPrefix("conditions:"), let raw = Int16(name.dropFirst("conditions:".count)), value != 0 {
                    statistics.usersByConditions[ServiceConditions(rawValue: UInt8(truncatingIfNeeded: raw))] = value
                }
            }
        }
        for try await next in try await client.query(
            "SELECT min(reminder_at) FROM remindd_users", logger: logger
        ).decode(Date?.self) {
            statistics.nextReminderAt = next?.millisecondPrecision
        }
        for sink in options.sinks { statistics.outboxPending[sink] = 0 }
        for try await (sink, count) in try await client.query(
            "SELECT sink, count(*) FROM remindd_outbox GROUP BY sink", logger: logger
        ).decode((String, Int).self) {
            statistics.outboxPending[sink] = count
        }
        for try await (letters, quarantined) in try await client.query(
            "SELECT (SELECT count(*) FROM remindd_dead_letters), (SELECT count(*) FROM remindd_quarantine)",
            logger: logger
        ).decode((Int, Int).self) {
            statistics.deadLetters = letters
            statistics.quarantined = quarantined
        }
        return statistics
    }

    /// `/v1/stats` over the whole database, in one snapshot: the day sums of the window's whole
    /// days and their outcomes not summed yet, every outcome of its partial first and last day
    /// (PostgresStateStore+OutcomeSums), and the open episodes from the users' columns, through
    /// the same `OutcomeStatistics` as the files backend.
    public func stats(since: Date, until: Date) async -> StatsReport {
        let firstDay = (since.timeIntervalSince1970 / Self.secondsPerDay).rounded(.up)
        let endDay = (until.timeIntervalSince1970 / Self.secondsPerDay).rounded(.down)
        let wholeDays = firstDay < endDay ? (Int(firstDay), Int(endDay)) : nil
        let wholeFrom = Date(timeIntervalSince1970: firstDay * Self.secondsPerDay)
        let wholeUntil = Date(timeIntervalSince1970: endDay * Self.secondsPerDay)
        do {
            return try await transaction(timeout: .seconds(60)) { connection in
                try await connection.query(
                    "SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY", logger: self.logger)
                var outcomes = OutcomeStatistics()
                var sums: [OutcomeAggregate.Keyed] = []
                let rows: PostgresQuery
                if let (first, end) = wholeDays {
                    for try await row in try await connection.query(
                        """
                        SELECT day, grp, reason, episodes, resolved, forgotten, after_reminders, ttf_exact,
                            ttf_buckets, ttf_counts
                        FROM remindd_outcome_days WHERE day >= \(first) AND day < \(end)
                        """, logger: self.logger
                    ).decode(DayRow.self) {
                        guard let sum = Self.aggregate(row) else {
                            throw StoreError.database("the day sum \(row.0) \(row.1) \(row.2) does not add up")
                        }
                        sums.append(.init(group: row.1, reason: PermissionErrorType(rawValue: row.2), sum: sum))
                    }
                    rows = """
                        SELECT line FROM remindd_outcomes
                        WHERE (started_at >= \(since) AND started_at < \(wholeFrom))
                           OR (started_at >= \(wholeUntil) AND started_at < \(until))
                           OR (NOT summed AND started_at >= \(wholeFrom) AND started_at < \(wholeUntil))
                        """
                } else {
                    rows = "SELECT line FROM remindd_outcomes WHERE started_at >= \(since) AND started_at < \(until)"
                }
                for try await line in try await connection.query(rows, logger: self.logger).decode(String.self) {
                    if let outcome = try? EpisodeOutcome(json: Array(line.utf8)) { outcomes.add(outcome) }
                }
                var open: [(Date, String, PermissionErrorType?)] = []
                for try await (started, group, reason) in try await connection.query(
                    """
                    SELECT episode_started_at, episode_group, episode_reason FROM remindd_users
                    WHERE episode_started_at >= \(since) AND episode_started_at < \(until)
                    """, logger: self.logger
                ).decode((Date, String?, String?).self) {
                    open.append(
                        (
                            started.millisecondPrecision, group ?? Experiment.defaultGroup,
                            reason.flatMap(PermissionErrorType.init(rawValue:))
                        ))
                }
                return outcomes.report(since: since, until: until, adding: sums) { body in
                    for (started, group, reason) in open { body(started, group, reason) }
                }
            }
        } catch {
            logger.error("stats: \(error)")
            return OutcomeStatistics().report(since: since, until: until) { _ in }
        }
    }
}
