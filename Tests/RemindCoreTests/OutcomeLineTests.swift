import Foundation
import RemindCore
import RemindTesting
import Testing

/// The fast reader of outcomes-log lines agrees with the JSON parser on what remindd writes,
/// and declines (for the parser to read) anything else.
struct OutcomeLineTests {
    static let outcomes: [EpisodeOutcome] = [
        EpisodeOutcome(
            userID: Fixtures.userID("u@x.com"), group: "mileage", reason: .locationServicesTurnedOff,
            startedAt: Fixtures.date("2026-11-15T10:00:00.125Z"), closedAt: Fixtures.date("2026-11-20T08:30:00Z"),
            outcome: .resolved, reminders: 12, platform: "android"),
        EpisodeOutcome(
            userID: Fixtures.userID("u-2"), group: "holdout", reason: nil,
            startedAt: Fixtures.date("2026-11-01T00:00:00Z"),
            closedAt: Fixtures.date("2026-12-01T00:00:00Z"), outcome: .forgotten, reminders: 0, platform: nil),
    ]

    @Test func readsWhatRemindWritesLikeTheParser() throws {
        for outcome in Self.outcomes {
            let line = try #require(OutcomeLine(outcome.jsonBytes[...]))
            #expect(String(decoding: line.group, as: UTF8.self) == outcome.group)
            #expect(line.reason == outcome.reason)
            #expect(line.startedAt == outcome.startedAt && line.closedAt == outcome.closedAt)
            #expect(line.resolved == (outcome.outcome == .resolved))
            #expect(line.reminders == outcome.reminders)
        }
        // Statistics built either way answer the same.
        var fast = OutcomeStatistics()
        var parsed = OutcomeStatistics()
        for outcome in Self.outcomes {
            fast.add(try #require(OutcomeLine(outcome.jsonBytes[...])))
            parsed.add(outcome)
        }
        let since = Fixtures.date("2026-10-01T00:00:00Z")
        let until = Fixtures.date("2027-01-01T00:00:00Z")
        #expect(fast.report(since: since, until: until) { _ in } == parsed.report(since: since, until: until) { _ in })
    }

    @Test(arguments: [
        #"{"group":"default","userID":"u","reason":null,"startedAt":"2026-11-01T00:00:00Z","closedAt":"2026-11-02T00:00:00Z","outcome":"resolved","reminders":1,"platform":null}"#,
        #"{"userID":"u","group":"de\u0066ault","reason":null,"startedAt":"2026-11-01T00:00:00Z","closedAt":"2026-11-02T00:00:00Z","outcome":"resolved","reminders":1,"platform":null}"#,
        #"{"userID":"u","group":"default","reason":"sleepy","startedAt":"2026-11-01T00:00:00Z","closedAt":"2026-11-02T00:00:00Z","outcome":"resolved","reminders":1,"platform":null}"#,
        #"{"userID":"u","group":"default","reason":null,"startedAt":"yesterday","closedAt":"2026-11-02T00:00:00Z","outcome":"resolved","reminders":1,"platform":null}"#,
        #"{"userID":"u","group":"default","reason":null,"startedAt":"2026-11-01T00:00:00Z","closedAt":"2026-11-02T00:00:00Z","outcome":"open","reminders":1,"platform":null}"#,
        #"{"userID":"u","group":"default","reason":null,"#,
    ])
    func declinesAnythingElse(line: String) {
        #expect(OutcomeLine(Array(line.utf8)[...]) == nil)
    }
}
