import Foundation
import RemindCore
import RemindTesting
import Testing

/// Groups, the holdout and copy variants (docs/outcomes.md), in the pure policy.
struct ExperimentTests {
    static func users(_ count: Int) -> [UserID] { (0..<count).map { Fixtures.userID("user-\($0)") } }

    @Test func holdoutShareFollowsThePercentage() {
        let users = Self.users(10_000)
        for (percent, low, high) in [(0.0, 0, 0), (100.0, 10_000, 10_000), (10.0, 880, 1_120), (50.0, 4_800, 5_200)] {
            let experiment = Experiment(holdoutPercent: percent)
            let held = users.count { experiment.group(for: $0) == Experiment.holdoutGroup }
            #expect((low...high).contains(held), "\(percent) %: \(held)")
        }
    }

    /// Weights split the rest; a weight of 0 removes a group; the draw is the same every time.
    @Test func variantsAreDrawnByWeightAndStably() {
        let users = Self.users(10_000)
        let copy = CopySet(notificationTitle: "t")
        let experiment = Experiment(
            defaultWeight: 1,
            variants: [.init(name: "mileage", weight: 3, copy: copy), .init(name: "off", weight: 0, copy: copy)])
        let groups = users.map(experiment.group(for:))
        let mileage = groups.count { $0 == "mileage" }
        #expect((7_200...7_800).contains(mileage), "\(mileage)")
        #expect(groups.count { $0 == "default" } == 10_000 - mileage)
        #expect(!groups.contains("off"))
        #expect(users.map(experiment.group(for:)) == groups)
        let noDefault = Experiment(defaultWeight: 0, variants: [.init(name: "only", copy: copy)])
        #expect(users.allSatisfy { noDefault.group(for: $0) == "only" })
    }

    /// A holdout episode's reminders are recorded at their due times and never emitted; the
    /// series runs exactly as if sent, and closing emits no withdraw.
    @Test func holdoutRemindersAreRecordedNotSent() {
        var configuration = PolicyConfiguration(
            notification: .init(showRecurringNotification: true, notificationTriggerDelay: 86_400))
        configuration.experiment = Experiment(holdoutPercent: 100)
        var harness = PolicyHarness(configuration)
        harness.report(Fixtures.report(.whileInUse, at: "2026-11-15T10:00:00Z"))
        #expect(harness.record?.openEpisode?.group == "holdout")
        #expect(harness.record?.openEpisode?.reason == .locationNotAuthorizedAlways)
        harness.run(until: Fixtures.date("2026-11-18T11:00:00Z"))
        #expect(harness.events.isEmpty)
        let episode = harness.record!.openEpisode!
        #expect(episode.deliveries.map(\.dueAt) == [16, 17, 18].map { Fixtures.date("2026-11-\($0)T10:00:00Z") })
        #expect(episode.heldOutCount == 3 && episode.sent.isEmpty)
        let closing = harness.report(Fixtures.report(.always, at: "2026-11-18T12:00:00Z"))
        #expect(closing.events.isEmpty)
        #expect(closing.outcomes.map(\.reminders) == [3])
        #expect(closing.outcomes.map(\.group) == ["holdout"])
        #expect(harness.record?.lastDelivery == nil)
    }

    /// The variant's own copy set reaches the reminder, localized and per reason; a `de` user in
    /// a variant without `de` gets the variant's texts, not the notification block's `de` ones.
    @Test func variantCopyReachesTheEvent() {
        var configuration = PolicyConfiguration(notification: .init(notificationTriggerDelay: 60))
        configuration.notification.notificationTitle = "Default title"
        configuration.notification.localizations = [
            "de": .init(notificationTitle: "Standardtitel", notificationDescription: "Standardtext")
        ]
        let variant = CopySet(
            notificationTitle: "Mileage title", notificationDescription: "Mileage body",
            byReason: [.locationServicesTurnedOff: .init(notificationDescription: "Turn Location Services on")],
            localizations: ["fr": .init(notificationTitle: "Titre kilométrage")])
        configuration.experiment = Experiment(defaultWeight: 0, variants: [.init(name: "mileage", copy: variant)])
        for (locale, services, title, body) in [
            ("de-CH", true, "Mileage title", "Mileage body"),
            ("fr-CA", true, "Titre kilométrage", "Mileage body"),
            ("en", false, "Mileage title", "Turn Location Services on"),
        ] {
            var harness = PolicyHarness(configuration)
            harness.report(
                PermissionReport(
                    location: .whileInUse, locationServices: services,
                    observedAt: Fixtures.date("2026-11-15T10:00:00Z"),
                    locale: locale))
            harness.run(until: Fixtures.date("2026-11-15T10:05:00Z"))
            #expect(harness.reminders.map(\.title) == [title], "\(locale)")
            #expect(harness.reminders.map(\.body) == [body], "\(locale)")
            #expect(harness.record?.openEpisode?.group == "mileage")
        }
    }

    /// A change of weights never moves an open episode: it keeps the group it opened in, and
    /// its reminders keep that group's words; new episodes follow the new weights.
    @Test func openEpisodesKeepTheirGroupAcrossAConfigurationChange() {
        var configuration = PolicyConfiguration(notification: .init(notificationTriggerDelay: 60))
        let variant = CopySet(notificationTitle: "Variant")
        configuration.experiment = Experiment(defaultWeight: 0, variants: [.init(name: "v", copy: variant)])
        var harness = PolicyHarness(configuration)
        harness.report(Fixtures.report(.whileInUse, at: "2026-11-15T10:00:00Z"))
        configuration.experiment = Experiment(defaultWeight: 1, variants: [.init(name: "v", weight: 0, copy: variant)])
        harness.policy = ReminderPolicy(configuration: configuration)
        harness.run(until: Fixtures.date("2026-11-15T10:05:00Z"))
        #expect(harness.record?.openEpisode?.group == "v")
        #expect(harness.reminders.map(\.title) == ["Variant"])
        harness.report(Fixtures.report(.always, at: "2026-11-15T11:00:00Z"))
        harness.report(Fixtures.report(.whileInUse, at: "2026-11-15T12:00:00Z"))
        #expect(harness.record?.openEpisode?.group == "default")
    }

    /// Known Wilson intervals (to 4 places), including the edges 0 and n.
    @Test(arguments: [
        (0, 10, 0.0, 0.2775), (5, 10, 0.2366, 0.7634), (81, 263, 0.2553, 0.3662), (600, 1_200, 0.4718, 0.5282),
        (10, 10, 0.7225, 1.0),
    ])
    func wilsonIntervalMatchesKnownValues(successes: Int, trials: Int, low: Double, high: Double) throws {
        let interval = try #require(StatsReport.wilson(successes: successes, trials: trials))
        #expect(abs(interval.lowerBound - low) < 0.00005 && abs(interval.upperBound - high) < 0.00005, "\(interval)")
        #expect(StatsReport.wilson(successes: 0, trials: 0) == nil)
    }

    static func outcome(
        _ user: Int, group: String = "default", started: String, fixedAfter seconds: Double, reminders: Int = 1,
        forgotten: Bool = false
    ) -> EpisodeOutcome {
        let start = Fixtures.date(started)
        return EpisodeOutcome(
            userID: Fixtures.userID("s-\(user)"), group: group, reason: .locationNotAuthorizedAlways, startedAt: start,
            closedAt: start.addingTimeInterval(seconds), outcome: forgotten ? .forgotten : .resolved,
            reminders: reminders, platform: nil)
    }

    /// Counts, rates, time to fix and reminders-before-fix on a known set; the window is
    /// half-open and by the episode's start; open episodes count as not resolved.
    @Test func statsOverAKnownSet() {
        var statistics = OutcomeStatistics()
        let fixes: [Double] = [60, 120, 180, 240, 300, 360, 420, 480, 540, 600]
        for (index, seconds) in fixes.enumerated() {
            statistics.add(
                Self.outcome(index, started: "2026-11-10T00:00:00Z", fixedAfter: seconds, reminders: index % 4))
        }
        statistics.add(Self.outcome(50, started: "2026-11-10T00:00:00Z", fixedAfter: 10, forgotten: true))
        statistics.add(
            Self.outcome(51, group: "holdout", started: "2026-11-10T00:00:00Z", fixedAfter: 99, reminders: 0))
        // On the window's edges: `since` is in, `until` is out.
        statistics.add(Self.outcome(60, started: "2026-11-01T00:00:00Z", fixedAfter: 1))
        statistics.add(Self.outcome(61, started: "2026-12-01T00:00:00Z", fixedAfter: 1))
        let open: [(Date, String, PermissionErrorType?)] = [
            (Fixtures.date("2026-11-20T00:00:00Z"), "default", .locationServicesTurnedOff),
            (Fixtures.date("2026-11-20T00:00:00Z"), "holdout", .locationNotAuthorizedAlways),
            (Fixtures.date("2026-10-20T00:00:00Z"), "default", nil),
        ]
        let report = statistics.report(
            since: Fixtures.date("2026-11-01T00:00:00Z"), until: Fixtures.date("2026-12-01T00:00:00Z")
        ) { body in
            for entry in open { body(OpenEpisode(startedAt: entry.0, group: entry.1, reason: entry.2, userID: nil)) }
        }
        #expect(report.groups.map(\.group) == ["default", "holdout"])
        let reminded = report.groups[0]
        #expect(reminded.episodes == 13)
        #expect(reminded.resolved == 11 && reminded.forgotten == 1 && reminded.open == 1)
        #expect(reminded.resolutionRate == 11.0 / 13.0)
        #expect(reminded.resolvedAfterReminders == [3, 4, 2, 2])
        // 11 resolved: 1 s, then 60 … 600 s. Nearest rank: p50 is the 6th, p90 the 10th.
        #expect(reminded.timeToFixP50 == 300)
        #expect(reminded.timeToFixP90 == 540)
        let holdout = report.groups[1]
        #expect(holdout.episodes == 2 && holdout.resolved == 1 && holdout.open == 1)
        #expect(report.upliftVsHoldout.map(\.group) == ["default"])
        #expect(abs(report.upliftVsHoldout[0].uplift - (11.0 / 13.0 - 0.5)) < 1e-12)
        #expect(
            report.byReason == [
                .init(reason: "locationNotAuthorizedAlways", episodes: 14, resolved: 12),
                .init(reason: "locationServicesTurnedOff", episodes: 1, resolved: 0),
            ])
    }

    /// Past 20,000 values the quantiles come from 1 % buckets: within 1 % of the exact ones.
    @Test func largeSetsGiveQuantilesWithinOnePercent() {
        var statistics = OutcomeStatistics()
        var generator = SplitMix64(seed: 7)
        var fixes: [Double] = []
        for index in 0..<50_000 {
            let seconds = Double(generator.next() % 2_000_000) + 1
            fixes.append(seconds)
            statistics.add(Self.outcome(index, started: "2026-11-10T00:00:00Z", fixedAfter: seconds))
        }
        let report = statistics.report(
            since: Fixtures.date("2026-11-01T00:00:00Z"), until: Fixtures.date("2026-12-01T00:00:00Z")
        ) { _ in }
        fixes.sort()
        let p50 = fixes[25_000 - 1]
        let p90 = fixes[45_000 - 1]
        #expect(abs(report.groups[0].timeToFixP50! - p50) / p50 < 0.01)
        #expect(abs(report.groups[0].timeToFixP90! - p90) / p90 < 0.01)
    }
}
