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
        do {
            return try await transaction(timeout: .seconds(60), readOnlySnapshot: true) { connection in
                guard firstDay < endDay else {
                    var outcomes = OutcomeStatistics()
                    try await self.addOutcomes(
                        from: since, until: until, onlyUnsummed: false, to: &outcomes, on: connection)
                    return try await self.report(since: since, until: until, outcomes, sums: [], on: connection)
                }
                let (first, end) = (Int(firstDay), Int(endDay))
                let wholeFrom = Date(timeIntervalSince1970: firstDay * Self.secondsPerDay)
                let wholeUntil = Date(timeIntervalSince1970: endDay * Self.secondsPerDay)
                var outcomes = OutcomeStatistics()
                var resolved = try await self.addOutcomes(
                    from: since, until: wholeFrom, onlyUnsummed: false, to: &outcomes, on: connection)
                resolved.merge(
                    try await self.addOutcomes(
                        from: wholeFrom, until: wholeUntil, onlyUnsummed: true, to: &outcomes, on: connection),
                    uniquingKeysWith: +)
                resolved.merge(
                    try await self.addOutcomes(
                        from: wholeUntil, until: until, onlyUnsummed: false, to: &outcomes, on: connection),
                    uniquingKeysWith: +)
                let sums = try await self.daySums(first..<end, resolvedOutside: resolved, on: connection)
                let funnelSums = try await self.funnelDaySums(first..<end, on: connection)
                return try await self.report(
                    since: since, until: until, outcomes, sums: sums, funnelSums: funnelSums, on: connection)
            }
        } catch {
            logger.error("stats: \(error)")
            return OutcomeStatistics().report(since: since, until: until) { _ in }
        }
    }

    /// Adds the outcomes that opened in `[from, until)` (those not summed yet, or all); returns
    /// the resolved ones by group.
    private func addOutcomes(
        from: Date, until: Date, onlyUnsummed: Bool, to outcomes: inout OutcomeStatistics,
        on connection: PostgresConnection
    ) async throws -> [String: Int] {
        guard from < until else { return [:] }
        // Two statements, not one with OR: each is a range on its own index.
        let rows: PostgresQuery =
            onlyUnsummed
            ? "SELECT line FROM remindd_outcomes WHERE NOT summed AND started_at >= \(from) AND started_at < \(until)"
            : "SELECT line FROM remindd_outcomes WHERE started_at >= \(from) AND started_at < \(until)"
        var resolved: [String: Int] = [:]
        for try await line in try await connection.query(rows, logger: logger).decode(String.self) {
            guard let outcome = try? EpisodeOutcome(json: Array(line.utf8)) else { continue }
            outcomes.add(outcome)
            if outcome.outcome == .resolved { resolved[outcome.group, default: 0] += 1 }
        }
        return resolved
    }

    /// The day sums of `days`. The times to fix come by bucket, except for groups with few
    /// enough resolved episodes in the window (`resolvedOutside` counts those read one by one)
    /// for their quantiles to be exact: theirs are read as they are, at most
    /// `TimeToFix.exactLimit` of them.
    private func daySums(
        _ days: Range<Int>, resolvedOutside: [String: Int], on connection: PostgresConnection
    ) async throws -> [OutcomeAggregate.Keyed] {
        var rows: [DayKey: DayRow] = [:]
        var resolved = resolvedOutside
        for try await row in try await connection.query(
            """
            SELECT day, grp, reason, episodes, resolved, forgotten, after_reminders, NULL::float8[], ttf_buckets,
                ttf_counts, send_time
            FROM remindd_outcome_days WHERE day >= \(days.lowerBound) AND day < \(days.upperBound)
            """, logger: logger
        ).decode(DayRow.self) {
            rows[DayKey(day: row.0, group: row.1, reason: row.2, sendTime: row.10)] = row
            resolved[row.1, default: 0] += row.4
        }
        let exact = resolved.filter { $0.value <= TimeToFix.exactLimit }.map(\.key)
        if rows.values.contains(where: { exact.contains($0.1) }) {
            for try await (day, group, reason, sendTime, times) in try await connection.query(
                """
                SELECT day, grp, reason, send_time, ttf_exact FROM remindd_outcome_days
                WHERE day >= \(days.lowerBound) AND day < \(days.upperBound) AND grp = ANY(\(exact))
                """, logger: logger
            ).decode((Int, String, String, String, [Double]?).self) {
                rows[DayKey(day: day, group: group, reason: reason, sendTime: sendTime)]?.7 = times
            }
        }
        return try rows.values.map { row in
            guard let sum = Self.aggregate(row) else {
                throw StoreError.database("the day sum \(row.0) \(row.1) \(row.2) does not add up")
            }
            return OutcomeAggregate.Keyed(
                group: row.1, reason: PermissionErrorType(rawValue: row.2), sendTime: SendTime.Arm(rawValue: row.10),
                sum: sum)
        }
    }

    /// The funnel's day sums of `days`.
    private func funnelDaySums(
        _ days: Range<Int>, on connection: PostgresConnection
    ) async throws
        -> [FunnelAggregate.Keyed]
    {
        var sums: [FunnelAggregate.Keyed] = []
        for try await (day, group, reason, platform, opening, counts) in try await connection.query(
            """
            SELECT day, grp, reason, platform, opening, counts FROM remindd_funnel_days
            WHERE day >= \(days.lowerBound) AND day < \(days.upperBound)
            """, logger: logger
        ).decode((Int, String, String, String, String, BigintArray).self) {
            guard let sum = FunnelAggregate(stored: counts.values) else {
                throw StoreError.database("the funnel's day sum \(day) \(group) \(reason) \(platform) does not add up")
            }
            sums.append(
                FunnelAggregate.Keyed(
                    group: group, reason: PermissionErrorType(rawValue: reason),
                    platform: ReportedPlatform(rawValue: platform), opening: Episode.Opening(rawValue: opening),
                    sum: sum))
        }
        return sums
    }

    /// The report of the closed episodes gathered, with the open ones from the users' columns.
    private func report(
        since: Date, until: Date, _ outcomes: OutcomeStatistics, sums: [OutcomeAggregate.Keyed],
        funnelSums: [FunnelAggregate.Keyed] = [], on connection: PostgresConnection
    ) async throws -> StatsReport {
        let sendTime = policy.configuration.notification.sendTime
        // The user decides an open episode's send-time arm: read only while send time is on.
        let byArm = sendTime != .due
        var open: [OpenEpisode] = []
        for try await (started, group, reason, user, marks, platform, opening) in try await connection.query(
            """
            SELECT episode_started_at, episode_group, episode_reason, CASE WHEN \(byArm) THEN user_id END,
                episode_marks, platform, episode_opening
            FROM remindd_users WHERE episode_started_at >= \(since) AND episode_started_at < \(until)
            """, logger: logger
        ).decode((Date, String?, String?, String?, Int16, String?, String?).self) {
            open.append(
                OpenEpisode(
                    startedAt: started.millisecondPrecision, group: group ?? Experiment.defaultGroup,
                    reason: reason.flatMap(PermissionErrorType.init(rawValue:)),
                    userID: user.flatMap { try? UserID($0) },
                    marks: FunnelMarks(rawValue: UInt8(truncatingIfNeeded: marks)),
                    platform: platform.flatMap(ReportedPlatform.init(rawValue:)),
                    opening: opening.flatMap(Episode.Opening.init(rawValue:))))
        }
        return outcomes.report(
            since: since, until: until, adding: sums, funnelSums: funnelSums, sendTime: sendTime
        ) { body in
            for episode in open { body(episode) }
        }
    }
}
