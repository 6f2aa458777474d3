import Foundation
import PostgresNIO
import RemindCore
import RemindStore

/// Closed episodes summed per day, group, reason and send-time arm (`remindd_outcome_days`), so that
/// `/v1/stats` over a month reads a few hundred rows instead of every outcome.
///
/// The outcomes stay as they are (the log, one row per episode); a fold, in the background on
/// whichever instance gets the lock, moves the rows not yet summed into the day sums and marks
/// them summed, in one transaction. A report adds the sums of the window's whole days, the
/// rows of those days not yet summed, and every row of the window's partial first and last
/// day; it runs in one snapshot, so it sees each episode exactly once, whatever the fold does
/// meanwhile. Times to fix merge exactly (`TimeToFix`): the answer is the one a scan of every
/// outcome gives.
extension PostgresStateStore {
    /// The most outcomes one fold's transaction takes.
    static let outcomeFoldBatch = 20_000
    static let secondsPerDay = 86_400.0

    /// Every 15 s: folding often keeps the rows a report reads itself few.
    func sumOutcomesLoop() async {
        while !Task.isCancelled {
            try? await Task.sleep(for: .seconds(15))
            if Task.isCancelled { return }
            do {
                try await sumOutcomes()
            } catch {
                logger.debug("summing outcomes: \(Self.describe(error))")
            }
        }
    }

    /// Folds every outcome not yet summed into the day sums, a batch a transaction; returns
    /// how many it folded. Another instance folding meanwhile has this one return at once.
    @discardableResult
    func sumOutcomes() async throws -> Int {
        var folded = 0
        while true {
            let batch = try await transaction(timeout: .seconds(60)) { connection in
                try await self.foldOutcomes(on: connection)
            }
            folded += batch ?? 0
            guard let batch, batch == Self.outcomeFoldBatch else { return folded }
        }
    }

    /// One batch; nil when another instance holds the fold's lock.
    private func foldOutcomes(on connection: PostgresConnection) async throws -> Int? {
        guard try await connection.tryAdvisoryLock(PostgresSchema.outcomeSumLock, .transaction, logger: logger) else {
            return nil
        }
        var sums: [DayKey: OutcomeAggregate] = [:]
        var funnels: [FunnelDayKey: FunnelAggregate] = [:]
        var folded = 0
        for try await (day, line) in try await connection.query(
            """
            UPDATE remindd_outcomes SET summed = true
            WHERE (user_id, started_at) IN (
                SELECT user_id, started_at FROM remindd_outcomes WHERE NOT summed LIMIT \(Self.outcomeFoldBatch))
            RETURNING floor(extract(epoch FROM started_at) / 86400)::int8, line
            """, logger: logger
        ).decode((Int, String).self) {
            folded += 1
            // A line that does not parse counts nowhere, as in the scan it replaces.
            guard let outcome = try? EpisodeOutcome(json: Array(line.utf8)) else { continue }
            let key = DayKey(
                day: day, group: outcome.group, reason: outcome.reason?.rawValue ?? "",
                sendTime: outcome.sendTime?.rawValue ?? "")
            sums[key, default: .init()].add(outcome)
            let funnelKey = FunnelDayKey(
                day: day, group: outcome.group, reason: outcome.reason?.rawValue ?? "",
                platform: ReportedPlatform(reported: outcome.platform)?.rawValue ?? "",
                opening: outcome.opening?.rawValue ?? "")
            funnels[funnelKey, default: .init()].add(outcome.marks, resolved: outcome.outcome == .resolved)
        }
        try await addFunnels(funnels, on: connection)
        guard !sums.isEmpty else { return folded }
        let keys = Array(sums.keys)
        for try await row in try await connection.query(
            """
            SELECT day, grp, reason, episodes, resolved, forgotten, after_reminders, ttf_exact, ttf_buckets,
                ttf_counts, send_time
            FROM remindd_outcome_days d
            JOIN unnest(
                \(keys.map(\.day))::int8[], \(keys.map(\.group))::text[], \(keys.map(\.reason))::text[],
                \(keys.map(\.sendTime))::text[]
            ) AS k(day, grp, reason, send_time) USING (day, grp, reason, send_time)
            """, logger: logger
        ).decode(DayRow.self) {
            let key = DayKey(day: row.0, group: row.1, reason: row.2, sendTime: row.10)
            guard let stored = Self.aggregate(row) else {
                throw StoreError.database("the day sum \(key.day) \(key.group) \(key.reason) does not add up")
            }
            sums[key]?.merge(stored)
        }
        for (key, sum) in sums {
            let histogram = sum.timesToFix.histogram
            try await connection.query(
                """
                INSERT INTO remindd_outcome_days AS d (day, grp, reason, send_time, episodes, resolved,
                    forgotten, after_reminders, ttf_exact, ttf_buckets, ttf_counts)
                VALUES (\(key.day), \(key.group), \(key.reason), \(key.sendTime), \(sum.episodes),
                    \(sum.resolved), \(sum.forgotten), \(sum.resolvedAfterReminders),
                    \(sum.timesToFix.exactValues), \(histogram.map(\.bucket)), \(histogram.map(\.count)))
                ON CONFLICT (day, grp, reason, send_time) DO UPDATE SET episodes = excluded.episodes,
                    resolved = excluded.resolved, forgotten = excluded.forgotten,
                    after_reminders = excluded.after_reminders, ttf_exact = excluded.ttf_exact,
                    ttf_buckets = excluded.ttf_buckets, ttf_counts = excluded.ttf_counts
                """, logger: logger)
        }
        return folded
    }

    /// Merges `funnels` into their day sums (`remindd_funnel_days`), in the fold's transaction.
    private func addFunnels(_ funnels: [FunnelDayKey: FunnelAggregate], on connection: PostgresConnection) async throws
    {
        guard !funnels.isEmpty else { return }
        var funnels = funnels
        let keys = Array(funnels.keys)
        for try await (day, group, reason, platform, opening, counts) in try await connection.query(
            """
            SELECT day, grp, reason, platform, opening, counts FROM remindd_funnel_days d
            JOIN unnest(
                \(keys.map(\.day))::int8[], \(keys.map(\.group))::text[], \(keys.map(\.reason))::text[],
                \(keys.map(\.platform))::text[], \(keys.map(\.opening))::text[]
            ) AS k(day, grp, reason, platform, opening) USING (day, grp, reason, platform, opening)
            """, logger: logger
        ).decode((Int, String, String, String, String, BigintArray).self) {
            let key = FunnelDayKey(day: day, group: group, reason: reason, platform: platform, opening: opening)
            guard let stored = FunnelAggregate(stored: counts.values) else {
                throw StoreError.database("the funnel's day sum \(day) \(group) \(reason) \(platform) does not add up")
            }
            funnels[key]?.merge(stored)
        }
        // A handful of keys a fold (days × groups × reasons × platforms): a statement each, as
        // the day sums are written.
        for (key, sum) in funnels {
            try await connection.query(
                """
                INSERT INTO remindd_funnel_days (day, grp, reason, platform, opening, counts)
                VALUES (\(key.day), \(key.group), \(key.reason), \(key.platform), \(key.opening), \(sum.stored))
                ON CONFLICT (day, grp, reason, platform, opening) DO UPDATE SET counts = excluded.counts
                """, logger: logger)
        }
    }

    /// day, group, reason, episodes, resolved, forgotten, after_reminders, ttf_exact,
    /// ttf_buckets, ttf_counts, send_time.
    typealias DayRow = (Int, String, String, Int, Int, Int, BigintArray, [Double]?, BigintArray, BigintArray, String)

    /// A day sum from its columns: with its times to fix when `ttf_exact` holds them, else by
    /// their buckets; nil when the parts do not add up.
    static func aggregate(_ row: DayRow) -> OutcomeAggregate? {
        let (resolved, exact, buckets, counts) = (row.4, row.7, row.8.values, row.9.values)
        guard buckets.count == counts.count, counts.reduce(0, +) == resolved else { return nil }
        let times: TimeToFix?
        if let exact {
            times = exact.count == resolved ? TimeToFix(exactValues: exact) : nil
        } else {
            times = TimeToFix(histogram: zip(buckets, counts).map { (bucket: $0, count: $1) })
        }
        guard let times else { return nil }
        return OutcomeAggregate(
            episodes: row.3, resolved: resolved, forgotten: row.5, resolvedAfterReminders: row.6.values,
            timesToFix: times)
    }
}

/// A funnel day sum's key: days since 1970-01-01 UTC of the episodes' start, their group,
/// reason, platform and opening ("" for none).
struct FunnelDayKey: Hashable, Sendable {
    var day: Int
    var group: String
    var reason: String
    var platform: String
    var opening: String
}

/// A day sum's key: days since 1970-01-01 UTC of the episodes' start, their group, their
/// reason and their send-time arm ("" for none).
struct DayKey: Hashable, Sendable {
    var day: Int
    var group: String
    var reason: String
    var sendTime: String
}
