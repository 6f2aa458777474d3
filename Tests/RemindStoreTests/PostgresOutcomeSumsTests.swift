import Foundation
import RemindCore
import RemindStore
import RemindTesting
import Testing

@testable import RemindPostgres

/// `/v1/stats` on PostgreSQL reads day sums for the window's whole days: whatever has been
/// summed (nothing, everything, some, by two instances at once) it answers what the memory
/// store, which keeps every episode, answers, for windows of whole days, partial days and
/// less than a day.
@Suite(.ownThread, .enabled(if: PostgresServer.isInstalled, "needs Debian's postgresql"))
struct PostgresOutcomeSumsTests {
    let start = Fixtures.date("2026-11-15T10:00:00Z")
    let policy = ReminderPolicy(
        configuration: PolicyConfiguration(
            notification: .init(notificationTriggerDelay: 60),
            experiment: Experiment(holdoutPercent: 30), inApp: InAppConfiguration(enabled: true)))

    static let platforms = [nil, "iOS 18.1", "Android 14", "HarmonyOS 4"]

    /// Users open an episode on one of five days (each answered with an ask, on one of four
    /// platforms); half are reminded, and of what they got some open, see and accept; most fix
    /// it hours later, some are forgotten (deleted), the rest stay open.
    func play(_ stores: [any StateStore], users: Range<Int>) async throws {
        for index in users {
            let user = Fixtures.userID("u-\(index)")
            let opened = start.addingTimeInterval(Double(index % 5) * 86_400 + Double(index * 97 % 50_000))
            for store in stores {
                var report = PermissionReport(location: .whileInUse, observedAt: opened)
                report.platform = Self.platforms[index % 4]
                _ = try await store.storeReport(report, for: user, receivedAt: opened)
                if index % 2 == 0 { _ = try await store.fireDue(now: opened.addingTimeInterval(120)) }
                try await engage(store, user, index)
                let closed = opened.addingTimeInterval(Double(index * 7_919 % 200_000))
                switch index % 7 {
                case 0: _ = try await store.delete(user, at: closed)
                case 1: break
                default:
                    _ = try await store.storeReport(
                        PermissionReport(location: .always, observedAt: closed), for: user, receivedAt: closed)
                }
            }
        }
    }

    /// What the app reports of the user's reminders and asks: some opened, shown, accepted.
    func engage(_ store: any StateStore, _ user: UserID, _ index: Int) async throws {
        guard let episode = try await store.record(user)?.openEpisode else { return }
        var events: [EngagementEvent] = []
        let at = episode.startedAt.addingTimeInterval(300)
        if index % 3 != 2, let delivery = episode.deliveries.first(where: { !$0.heldOut }) {
            events.append(EngagementEvent(kind: .reminderOpened, id: delivery.id, at: at))
        }
        if let ask = episode.asks.first {
            if index % 4 != 3 { events.append(EngagementEvent(kind: .askShown, id: ask.id, at: at)) }
            if index % 5 != 4 { events.append(EngagementEvent(kind: .askAccepted, id: ask.id, at: at)) }
        }
        _ = try await store.recordEvents(events, for: user)
    }

    var windows: [(Date, Date)] {
        let midnight = Fixtures.date("2026-11-16T00:00:00Z")
        return [
            (start.addingTimeInterval(-86_400), start.addingTimeInterval(10 * 86_400)),
            (midnight, midnight.addingTimeInterval(3 * 86_400)),
            (start.addingTimeInterval(1.5 * 86_400), start.addingTimeInterval(3.2 * 86_400)),
            (midnight.addingTimeInterval(3_600), midnight.addingTimeInterval(20 * 3_600)),
        ]
    }

    func expectSameStats(
        _ store: PostgresStateStore, _ reference: MemoryStateStore, sourceLocation: SourceLocation = #_sourceLocation
    ) async {
        for (since, until) in windows {
            let expected = await reference.stats(since: since, until: until)
            #expect(await store.stats(since: since, until: until) == expected, sourceLocation: sourceLocation)
            #expect(expected.groups.count == 2 && expected.groups.allSatisfy { $0.episodes > 0 })
            // The funnel reaches its last step, and splits by every platform.
            let funnel = expected.funnel.byGroup.first { $0.name == Experiment.defaultGroup }?.sum
            #expect((funnel?.reached.last ?? 0) > 0 && (funnel?.accepted ?? 0) > 0)
            #expect(expected.funnel.byPlatform.map(\.name) == ["android", "ios", "other", "unknown"])
        }
    }

    /// Folds until no outcome is left unsummed: a fold finds the lock taken while an instance's
    /// background fold (every 15 s) holds it, and returns at once without waiting for it.
    func foldEverything(_ store: PostgresStateStore, _ server: PostgresServer, _ database: String) async throws {
        try await waitUntil("every outcome summed", within: .seconds(60), every: .milliseconds(100)) {
            try await store.sumOutcomes()
            return try server.psql(database, "SELECT count(*) FROM remindd_outcomes WHERE NOT summed") == "0\n"
        }
    }

    @Test func statsFromDaySumsEqualAScanOfEveryOutcome() async throws {
        let server = try PostgresServer.shared()
        let database = try server.createDatabase()
        let a = try StoreBackend.openPostgres(policy: policy, sinks: ["file"], now: start, database: database)
        let b = try StoreBackend.openPostgres(policy: policy, sinks: ["file"], now: start, database: database)
        let reference = MemoryStateStore(sinks: ["file"], policy: policy, now: start)
        try await play([a, reference], users: 0..<350)
        await expectSameStats(a, reference)
        let outcomes = Int(try server.psql(database, "SELECT count(*) FROM remindd_outcomes").dropLast())!
        #expect(outcomes > 250)
        // The background fold may have taken some already.
        try await foldEverything(a, server, database)
        #expect(try server.psql(database, "SELECT sum(episodes) FROM remindd_outcome_days") == "\(outcomes)\n")
        #expect(try server.psql(database, "SELECT sum(counts[1]) FROM remindd_funnel_days") == "\(outcomes)\n")
        await expectSameStats(a, reference)
        await expectSameStats(b, reference)
        // Some summed, some not; then two instances fold at once: each outcome once.
        try await play([b, reference], users: 350..<500)
        await expectSameStats(a, reference)
        async let first = a.sumOutcomes()
        async let second = b.sumOutcomes()
        _ = try await (first, second)
        try await foldEverything(a, server, database)
        #expect(
            try server.psql(database, "SELECT sum(episodes) FROM remindd_outcome_days")
                == server.psql(database, "SELECT count(*) FROM remindd_outcomes"))
        await expectSameStats(b, reference)
        await a.close()
        await b.close()
    }

    /// With send time in the user's active hour and a holdout, the sums keep each outcome's
    /// arm: `bySendTime` from day sums is the memory store's, and both arms have episodes.
    @Test func sendTimeArmsSurviveTheDaySums() async throws {
        var configuration = policy.configuration
        configuration.notification.sendTime = .active(.init(holdoutPercent: 50))
        let policy = ReminderPolicy(configuration: configuration)
        let server = try PostgresServer.shared()
        let database = try server.createDatabase()
        let store = try StoreBackend.openPostgres(policy: policy, sinks: ["file"], now: start, database: database)
        let reference = MemoryStateStore(sinks: ["file"], policy: policy, now: start)
        try await play([store, reference], users: 0..<200)
        try await store.sumOutcomes()
        #expect(try server.psql(database, "SELECT count(DISTINCT send_time) FROM remindd_outcome_days") == "2\n")
        await expectSameStats(store, reference)
        let arms = await store.stats(since: windows[0].0, until: windows[0].1).bySendTime
        #expect(arms.map(\.name) == ["due", "active"] && arms.allSatisfy { $0.episodes > 0 })
        await store.close()
    }

    /// A day sum changed by another hand so that it no longer adds up refuses the fold (which
    /// leaves every outcome as it was), not a report that is silently wrong.
    @Test func aSumThatDoesNotAddUpStopsTheFold() async throws {
        let server = try PostgresServer.shared()
        let database = try server.createDatabase()
        let store = try StoreBackend.openPostgres(policy: policy, sinks: ["file"], now: start, database: database)
        let reference = MemoryStateStore(sinks: ["file"], policy: policy, now: start)
        try await play([store, reference], users: 0..<50)
        try await store.sumOutcomes()
        try server.psql(database, "UPDATE remindd_outcome_days SET resolved = resolved + 1")
        try await play([store, reference], users: 50..<60)
        await #expect(throws: StoreError.self) { try await store.sumOutcomes() }
        #expect(try server.psql(database, "SELECT count(*) > 0 FROM remindd_outcomes WHERE NOT summed") == "t\n")
        await store.close()
    }
}
