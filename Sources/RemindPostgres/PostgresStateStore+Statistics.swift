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

    /// `/v1/stats` over the whole database: the closed episodes of the window from
    /// `remindd_outcomes`, the open ones from the users' columns, through the same
    /// `OutcomeStatistics` as the files backend.
    public func stats(since: Date, until: Date) async -> StatsReport {
        do {
            return try await database {
                var outcomes = OutcomeStatistics()
                for try await line in try await self.client.query(
                    """
                    SELECT line FROM remindd_outcomes WHERE started_at >= \(since) AND started_at < \(until)
                    """, logger: self.logger
                ).decode(String.self) {
                    if let outcome = try? EpisodeOutcome(json: Array(line.utf8)) { outcomes.add(outcome) }
                }
                var open: [(Date, String, PermissionErrorType?, UserID?)] = []
                for try await (started, group, reason, user) in try await self.client.query(
                    """
                    SELECT episode_started_at, episode_group, episode_reason, user_id FROM remindd_users
                    WHERE episode_started_at >= \(since) AND episode_started_at < \(until)
                    """, logger: self.logger
                ).decode((Date, String?, String?, String).self) {
                    open.append(
                        (
                            started.millisecondPrecision, group ?? Experiment.defaultGroup,
                            reason.flatMap(PermissionErrorType.init(rawValue:)), try? UserID(user)
                        ))
                }
                let sendTime = self.policy.configuration.notification.sendTime
                return outcomes.report(since: since, until: until, sendTime: sendTime) { body in
                    for (started, group, reason, user) in open { body(started, group, reason, user) }
                }
            }
        } catch {
            logger.error("stats: \(error)")
            return OutcomeStatistics().report(since: since, until: until) { _ in }
        }
    }
}
