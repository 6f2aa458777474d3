import Foundation
import RemindCore
import RemindStore
import RemindTesting
import Testing

/// The outcomes log (docs/outcomes.md): every closed episode once, durable with the report that
/// closed it, whichever moment a crash picks.
@Suite(.ownThread)
struct OutcomeLogTests {
    let start = Fixtures.date("2026-11-15T10:00:00Z")
    let policy = ReminderPolicy(configuration: PolicyConfiguration(notification: .init(notificationTriggerDelay: 60)))

    func report(
        _ store: FileStateStore, _ user: String, _ location: LocationAuthorization, at offset: Double
    )
        async throws -> ReportOutcome
    {
        let at = start.addingTimeInterval(offset)
        return try await store.storeReport(
            PermissionReport(location: location, observedAt: at), for: Fixtures.userID(user), receivedAt: at
        ).outcome
    }

    func lines(_ directory: String) throws -> [String] {
        let outcomes = directory + "/outcomes"
        var lines: [String] = []
        for name in try FileManager.default.contentsOfDirectory(atPath: outcomes).sorted()
        where name.hasSuffix(".jsonl") {
            lines += try String(contentsOfFile: outcomes + "/" + name, encoding: .utf8).split(separator: "\n").map(
                String.init)
        }
        return lines
    }

    var window: (Date, Date) { (start.addingTimeInterval(-86_400), start.addingTimeInterval(86_400 * 60)) }

    /// A crash before any checkpoint: the outcome is only in the write-ahead log, and replay
    /// appends it once; a crash after a checkpoint appended it (the log still holding it):
    /// replay finds it in the file and does not append it again.
    @Test(arguments: [false, true])
    func closedEpisodeIsLoggedOnceWhateverTheCrash(checkpointFirst: Bool) async throws {
        let fixture = try StoreFixture()
        let store = try fixture.open(policy: policy)
        _ = try await report(store, "a", .whileInUse, at: 0)
        _ = try await report(store, "b", .denied, at: 1)
        let closing = try await report(store, "a", .always, at: 3_600)
        #expect(closing.outcomes.count == 1)
        #expect(closing.outcomes.first?.outcome == .resolved)
        #expect(closing.outcomes.first?.timeToFix == 3_600)
        if checkpointFirst {
            try await store.checkpoint(snapshot: false)
            #expect(try lines(fixture.directory).count == 1)
        } else {
            #expect(try lines(fixture.directory).isEmpty)
        }
        let crashed = try fixture.crashCopy()
        defer { try? FileManager.default.removeItem(atPath: crashed) }
        let recovered = try fixture.open(crashed, policy: policy)
        let stats = await recovered.stats(since: window.0, until: window.1)
        #expect(stats.groups.map(\.group) == ["default"])
        #expect(stats.groups.first?.episodes == 2)
        #expect(stats.groups.first?.resolved == 1)
        #expect(stats.groups.first?.open == 1)
        await recovered.close()
        let logged = try lines(crashed)
        #expect(logged.count == 1)
        let outcome = try EpisodeOutcome(json: Array(logged[0].utf8))
        #expect(outcome == closing.outcomes[0])
        // Opened again and closed by the log's next start: still once.
        let again = try fixture.open(crashed, policy: policy)
        #expect(await again.stats(since: window.0, until: window.1) == stats)
        await again.close()
        #expect(try lines(crashed).count == 1)
        await store.close()
    }

    /// A delete with an episode open records it `forgotten`, closed at the delete.
    @Test func deleteForgetsTheOpenEpisode() async throws {
        let fixture = try StoreFixture()
        let store = try fixture.open(policy: policy)
        _ = try await report(store, "a", .whileInUse, at: 0)
        let deletedAt = start.addingTimeInterval(7_200)
        #expect(try await store.delete(Fixtures.userID("a"), at: deletedAt))
        let stats = await store.stats(since: window.0, until: window.1)
        #expect(stats.groups.first?.forgotten == 1)
        #expect(stats.groups.first?.resolutionRate == 0)
        await store.close()
        let outcome = try EpisodeOutcome(json: Array(try lines(fixture.directory)[0].utf8))
        #expect(outcome.outcome == .forgotten && outcome.closedAt == deletedAt)
    }

    /// The exact keys of docs/outcomes.md, in the file named by the month the episode closed in.
    @Test func outcomeLineHasExactlyTheDocumentedKeys() throws {
        let outcome = EpisodeOutcome(
            userID: Fixtures.userID("u-1"), group: "mileage", reason: .locationNotAuthorizedAlways,
            startedAt: start, closedAt: Fixtures.date("2026-12-01T00:00:00Z"), outcome: .resolved, reminders: 2,
            platform: "ios")
        #expect(outcome.fileName == "outcomes-2026-12.jsonl")
        #expect(
            String(decoding: outcome.jsonBytes, as: UTF8.self)
                == #"{"userID":"u-1","group":"mileage","reason":"locationNotAuthorizedAlways","startedAt":"2026-11-15T10:00:00Z","closedAt":"2026-12-01T00:00:00Z","outcome":"resolved","reminders":2,"platform":"ios","opened":0,"asks":0,"asksShown":0,"asksAccepted":0}"#
        )
        #expect(try EpisodeOutcome(json: outcome.jsonBytes) == outcome)
    }
}
