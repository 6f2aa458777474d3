import Foundation
import RemindAPI
import RemindCore
import RemindTesting
import Testing

/// The funnel (docs/outcomes.md "The funnel"): an ordered funnel of episodes, summed exactly,
/// from outcome lines (fast and generic reading alike) and open episodes.
struct FunnelTests {
    @Test func anEpisodeCountsAtAStepOnlyAfterEveryStepBefore() {
        #expect(FunnelMarks([]).depth(resolved: true) == 0)
        #expect(FunnelMarks([.reminded, .opened]).depth(resolved: false) == 2)
        #expect(FunnelMarks([.reminded, .asked, .shown, .accepted]).depth(resolved: true) == 1)
        #expect(FunnelMarks([.reminded, .opened, .asked, .shown, .accepted]).depth(resolved: true) == 6)
        var sum = FunnelAggregate()
        sum.add([.reminded, .opened, .asked, .shown, .accepted], resolved: true)
        sum.add([.reminded, .asked], resolved: true)
        sum.add([], resolved: false)
        #expect(sum.reached == [3, 2, 1, 1, 1, 1, 1])
        #expect((sum.accepted, sum.acceptedResolved, sum.notAccepted, sum.notAcceptedResolved) == (1, 1, 1, 1))
        #expect(FunnelAggregate(stored: sum.stored) == sum)
        #expect(FunnelAggregate(stored: [1, 2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]) == nil)
        var merged = sum
        merged.merge(sum)
        #expect(merged.reached == sum.reached.map { $0 * 2 })
    }

    /// Each channel counts the episodes a reminder reached through it, and their resolution; a
    /// sum stored before channels were counted reads back with none; marks kept before then
    /// (reminded, no channel) count as push.
    @Test func channelsAreCountedAndStored() {
        var sum = FunnelAggregate()
        sum.add([.reminded, .pushed], resolved: true)
        sum.add([.reminded, .pushed, .fellBack], resolved: false)
        sum.add([.reminded, .fellBack], resolved: true)
        sum.add([.reminded], resolved: false)
        sum.add([], resolved: true)
        #expect(sum.channelEpisodes == [3, 2] && sum.channelResolved == [1, 1])
        #expect(sum.stored.count == 16 && FunnelAggregate(stored: sum.stored) == sum)
        let old = FunnelAggregate(stored: Array(sum.stored.prefix(12)))
        #expect(old?.channelEpisodes == [0, 0] && old?.reached == sum.reached)
        var wrong = sum.stored
        wrong[13] = wrong[12] + 1
        #expect(FunnelAggregate(stored: wrong) == nil, "more resolved than episodes")
    }

    /// `/v1/stats`'s funnel reads back (what `remindctl stats --funnel` prints) with every step,
    /// the last one too.
    @Test func theFunnelReadsBackFromItsJSON() throws {
        var sum = FunnelAggregate()
        sum.add([.reminded, .opened, .asked, .shown, .accepted], resolved: true)
        sum.add([.reminded, .asked], resolved: false)
        var report = StatsReport(
            since: Fixtures.date("2026-11-01T00:00:00Z"), until: Fixtures.date("2026-12-01T00:00:00Z"), groups: [],
            byReason: [], upliftVsHoldout: [])
        report.funnel = StatsReport.Funnel(byGroup: [StatsReport.NamedFunnel(name: "default", sum: sum)])
        let read = try StatsReport(json: try JSONParser.parse(report.jsonBytes))
        let funnel = try #require(read.funnel.byGroup.first?.sum)
        #expect(funnel.reached == sum.reached && funnel.accepted == 1 && funnel.notAccepted == 1)
    }

    /// An outcome line keeps what the funnel needs; the fast reader and the generic one agree,
    /// and a line of an older version counts as reminded at most.
    @Test func outcomeLinesCarryTheFunnel() throws {
        var outcome = EpisodeOutcome(
            userID: Fixtures.userID("f"), group: "default", reason: .locationNotAuthorizedAlways,
            startedAt: Fixtures.date("2026-11-15T10:00:00Z"), closedAt: Fixtures.date("2026-11-16T10:00:00Z"),
            outcome: .resolved, reminders: 2, platform: "Android 14")
        (outcome.opening, outcome.opened, outcome.asks, outcome.asksShown, outcome.asksAccepted) = (
            .downgrade, 1, 2, 1, 1
        )
        let bytes = outcome.jsonBytes
        #expect(try EpisodeOutcome(json: bytes) == outcome)
        let line = try #require(OutcomeLine(bytes[...]))
        // A line without channels is an older one: it marks none, and its reminders count as
        // push, read either way.
        #expect(line.marks == outcome.marks && line.marks == [.reminded, .opened, .asked, .shown, .accepted])
        var legacy = FunnelAggregate()
        legacy.add(line.marks, resolved: true)
        #expect(legacy.channelEpisodes == [1, 0] && legacy.channelResolved == [1, 0])
        outcome.channels = [.fallback, .push]
        let both = try #require(OutcomeLine(outcome.jsonBytes[...]))
        #expect(both.marks == outcome.marks && both.marks.channels == [.fallback, .push])
        #expect(try EpisodeOutcome(json: outcome.jsonBytes) == outcome)
        outcome.channels = []
        #expect(try #require(OutcomeLine(outcome.jsonBytes[...])).marks.channels.isEmpty)
        #expect(line.platform == .android)
        let old = Array(
            #"{"userID":"o","group":"holdout","reason":null,"startedAt":"2026-11-15T10:00:00Z","closedAt":"2026-11-15T11:00:00Z","outcome":"resolved","reminders":1,"platform":"iOS 17"}"#
                .utf8)
        let oldLine = try #require(OutcomeLine(old[...]))
        #expect(oldLine.marks == [] && oldLine.platform == .ios)
        #expect(try EpisodeOutcome(json: old).marks == [])
    }

    /// Closed and open episodes in the report: by group, reason and platform; `resolvedAfterAsk`
    /// beside it.
    @Test func theReportSplitsTheFunnel() {
        let start = Fixtures.date("2026-11-15T10:00:00Z")
        var statistics = OutcomeStatistics()
        func closed(_ platform: String?, _ marks: (Int, Int, Int, Int), reminders: Int, resolved: Bool = true) {
            var outcome = EpisodeOutcome(
                userID: Fixtures.userID("c"), group: "default", reason: .locationNotAuthorizedAlways, startedAt: start,
                closedAt: start.addingTimeInterval(60), outcome: resolved ? .resolved : .forgotten,
                reminders: reminders, platform: platform)
            (outcome.opened, outcome.asks, outcome.asksShown, outcome.asksAccepted) = marks
            statistics.add(outcome)
        }
        closed("iOS 18", (1, 1, 1, 1), reminders: 1)
        closed("iOS 18", (0, 1, 0, 0), reminders: 1)
        closed(nil, (0, 0, 0, 0), reminders: 0, resolved: false)
        let open = OpenEpisode(
            startedAt: start, group: "default", reason: .locationServicesTurnedOff, userID: nil,
            marks: [.reminded, .opened], platform: .other)
        let report = statistics.report(since: start, until: start.addingTimeInterval(3_600)) { $0(open) }
        let group = report.funnel.byGroup.first
        #expect(group?.name == "default" && group?.sum.reached == [4, 3, 2, 1, 1, 1, 1])
        #expect(report.funnel.byPlatform.map(\.name) == ["ios", "other", "unknown"])
        #expect(report.funnel.byPlatform[0].sum.reached == [2, 2, 1, 1, 1, 1, 1])
        #expect(report.funnel.byReason.map(\.name) == ["locationNotAuthorizedAlways", "locationServicesTurnedOff"])
        #expect(
            group.map { ($0.sum.accepted, $0.sum.notAccepted, $0.sum.notAcceptedResolved) } ?? (0, 0, 0) == (1, 1, 1))
    }
}

/// "Always kept": gains of Always access, and whether the state a horizon later still has it.
struct AlwaysKeptTests {
    let start = Fixtures.date("2026-01-01T00:00:00Z")
    let policy = ReminderPolicy(configuration: PolicyConfiguration())

    func record(_ user: String, platform: String?, _ states: [(day: Double, LocationAuthorization)]) -> UserRecord {
        var record: UserRecord?
        for (day, location) in states {
            let at = start.addingTimeInterval(day * 86_400)
            var report = PermissionReport(location: location, observedAt: at)
            report.platform = platform
            record = policy.apply(report, to: record, userID: Fixtures.userID(user), receivedAt: at).record
        }
        return record!
    }

    @Test func gainsAreKeptOrLostAtEachHorizon() {
        var tally = AlwaysKeptTally(computedAt: start.addingTimeInterval(100 * 86_400))
        // Always first, lost on day 10: kept at 7 days, not at 30 or 90.
        tally.add(record("a", platform: "iOS 18", [(0, .always), (10, .whileInUse)]), historyMaxEntries: 1000)
        // Gained on day 5 and kept: kept at every horizon (day 95 is before the reading).
        tally.add(record("b", platform: "Android 14", [(0, .whileInUse), (5, .always)]), historyMaxEntries: 1000)
        // Gained on day 95: no horizon has passed.
        tally.add(record("c", platform: nil, [(95, .always)]), historyMaxEntries: 1000)
        // Lost and regained before day 30: at day 30 it has Always again, so kept.
        tally.add(
            record("d", platform: "iOS 18", [(1, .always), (3, .denied), (20, .always)]), historyMaxEntries: 1000)
        let report = tally.report(since: start, until: start.addingTimeInterval(200 * 86_400))
        #expect(report.overall.map(\.days) == [7, 30, 90])
        // Gains: a@0, b@5, c@95, d@1, d@20 (decided: all but c; d@20's 90 days is day 110).
        #expect(report.overall.map(\.users) == [4, 4, 3])
        #expect(report.overall.map(\.kept) == [3, 3, 2])
        #expect(report.byPlatform.map(\.name) == ["android", "ios"])
        #expect(report.byPlatform[1].horizons.map(\.users) == [3, 3, 2])
        // A window of days: only d's second gain lies in days 15–25.
        let window = tally.report(
            since: start.addingTimeInterval(15 * 86_400), until: start.addingTimeInterval(25 * 86_400))
        #expect(window.overall.map(\.users) == [1, 1, 0] && window.overall.map(\.kept) == [1, 1, 0])
        // A history cut short has lost its first report: its oldest entry is no gain.
        var cut = AlwaysKeptTally(computedAt: start.addingTimeInterval(100 * 86_400))
        cut.add(record("e", platform: nil, [(0, .always), (10, .whileInUse)]), historyMaxEntries: 2)
        #expect(
            cut.report(since: start, until: start.addingTimeInterval(200 * 86_400)).overall.map(\.users) == [0, 0, 0])
    }
}
