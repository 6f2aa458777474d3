import Foundation
import RemindCore
import RemindTesting
import Testing

/// Closed episodes summed in parts, as a store keeps them per day, give the report a scan of
/// every episode gives: counts, reasons, reminders before the fix and the quantiles of the time
/// to fix, on both sides of the exact-values limit.
struct OutcomeAggregateTests {
    let since = Fixtures.date("2026-11-01T00:00:00Z")
    let until = Fixtures.date("2026-12-01T00:00:00Z")
    let reasons: [PermissionErrorType?] = [.locationNotAuthorizedAlways, .locationServicesTurnedOff, nil]

    func outcomes(_ count: Int, seed: UInt64) -> [EpisodeOutcome] {
        var generator = SplitMix64(seed: seed)
        return (0..<count).map { index in
            let start = since.addingTimeInterval(Double(generator.next() % (29 * 86_400)))
            var outcome = EpisodeOutcome(
                userID: Fixtures.userID("u-\(index)"), group: ["default", "b", "holdout"][Int(generator.next() % 3)],
                reason: reasons[Int(generator.next() % 3)], startedAt: start,
                closedAt: start.addingTimeInterval(Double(generator.next() % 1_000_000)),
                outcome: generator.next() % 5 == 0 ? .forgotten : .resolved, reminders: Int(generator.next() % 6),
                platform: [nil, "iOS 18", "Android 14", "KaiOS"][Int(generator.next() % 4)])
            // What the app reported, at random: the funnel's sums must add up as the scan does.
            let steps = Int(generator.next() % 5)
            (outcome.opened, outcome.asks, outcome.asksShown, outcome.asksAccepted) = (
                steps > 0 ? 1 : 0, steps > 1 ? 2 : 0, steps > 2 ? 1 : 0, steps > 3 ? 1 : 0
            )
            return outcome
        }
    }

    /// Some episodes scanned, the others summed by day, group and reason, then read back as
    /// a store does: by their times for a group with few enough resolved episodes for exact
    /// quantiles, else by their buckets alone.
    func splitReport(_ all: [EpisodeOutcome], seed: UInt64) -> StatsReport {
        var generator = SplitMix64(seed: seed)
        var scanned = OutcomeStatistics()
        var sums: [String: OutcomeAggregate.Keyed] = [:]
        var funnels: [String: FunnelAggregate.Keyed] = [:]
        var resolved: [String: Int] = [:]
        for outcome in all {
            if outcome.outcome == .resolved { resolved[outcome.group, default: 0] += 1 }
            if generator.next() % 4 == 0 {
                scanned.add(outcome)
                continue
            }
            let day = Int(outcome.startedAt.timeIntervalSince1970 / 86_400)
            let key = "\(day) \(outcome.group) \(outcome.reason?.rawValue ?? "")"
            sums[key, default: .init(group: outcome.group, reason: outcome.reason, sum: .init())].sum.add(outcome)
            let platform = ReportedPlatform(reported: outcome.platform)
            funnels[
                key + " \(platform?.rawValue ?? "")",
                default: .init(
                    group: outcome.group, reason: outcome.reason, platform: platform, sum: .init())
            ]
            .sum.add(outcome.marks, resolved: outcome.outcome == .resolved)
        }
        let stored = sums.values.map { keyed in
            let times = keyed.sum.timesToFix
            let read =
                resolved[keyed.group]! <= TimeToFix.exactLimit
                ? TimeToFix(exactValues: times.exactValues!) : TimeToFix(histogram: times.histogram)!
            let sum = OutcomeAggregate(
                episodes: keyed.sum.episodes, resolved: keyed.sum.resolved, forgotten: keyed.sum.forgotten,
                resolvedAfterReminders: keyed.sum.resolvedAfterReminders, timesToFix: read)!
            return OutcomeAggregate.Keyed(group: keyed.group, reason: keyed.reason, sum: sum)
        }
        return scanned.report(since: since, until: until, adding: stored, funnelSums: Array(funnels.values)) { _ in }
    }

    func scanReport(_ all: [EpisodeOutcome]) -> StatsReport {
        var statistics = OutcomeStatistics()
        for outcome in all { statistics.add(outcome) }
        return statistics.report(since: since, until: until) { _ in }
    }

    @Test(arguments: [(300, UInt64(1)), (2_000, 2)])
    func fewEpisodesSummedGiveTheScansReport(count: Int, seed: UInt64) {
        let all = outcomes(count, seed: seed)
        let report = splitReport(all, seed: seed + 100)
        #expect(report == scanReport(all))
        #expect(report.groups.count == 3 && report.byReason.count == 3)
        #expect(report.groups.allSatisfy { $0.timeToFixP50 != nil && $0.resolvedAfterReminders[3] > 0 })
    }

    /// Past 20,000 resolved episodes in a group the quantiles come from the histogram, on
    /// both sides alike.
    @Test func manyEpisodesSummedGiveTheScansReport() {
        let all = outcomes(90_000, seed: 3)
        #expect(splitReport(all, seed: 4) == scanReport(all))
    }

    /// What cannot be one sum's is refused: a bucket out of range, a count below one,
    /// counts that do not add up.
    @Test func storedPartsThatDoNotAddUpAreRefused() {
        #expect(TimeToFix(histogram: [(-1, 30)]) == nil)
        #expect(TimeToFix(histogram: [(5, 0)]) == nil)
        #expect(TimeToFix(histogram: [(5, 10), (7, 20)])?.total == 30)
        #expect(TimeToFix(exactValues: [5, 6]).histogram.map(\.count) == [1, 1])
        let times = TimeToFix(exactValues: [5, 6])
        #expect(
            OutcomeAggregate(
                episodes: 3, resolved: 2, forgotten: 1, resolvedAfterReminders: [1, 1, 0, 0], timesToFix: times)
                != nil)
        #expect(
            OutcomeAggregate(
                episodes: 3, resolved: 2, forgotten: 0, resolvedAfterReminders: [1, 1, 0, 0], timesToFix: times)
                == nil)
        #expect(
            OutcomeAggregate(
                episodes: 3, resolved: 2, forgotten: 1, resolvedAfterReminders: [2, 1, 0, 0], timesToFix: times)
                == nil)
        #expect(
            OutcomeAggregate(
                episodes: 2, resolved: 1, forgotten: 1, resolvedAfterReminders: [1, 0, 0, 0], timesToFix: times) == nil)
    }
}
