import Foundation
import RemindAPI
import RemindCore
import RemindTesting
import Testing

/// The wire formats compared byte for byte with fixed examples.
struct SinkEventTests {
    static let reminderFixture =
        #"{"type":"reminder","id":"u-42/1794736800/1","userID":"u-42","title":"App is unable to record trips","body":"Please grant Always access for location.","reason":"locationNotAuthorizedAlways","errors":["locationNotAuthorizedAlways"],"sequence":1,"episodeStartedAt":"2026-11-15T10:00:00Z","dueAt":"2026-11-22T10:00:00Z","channel":"push","because":null,"locale":null,"platform":null,"createdAt":"2026-11-22T10:00:00.012Z"}"#
    static let withdrawFixture =
        #"{"type":"withdraw","id":"u-42/1794736800/withdraw","userID":"u-42","reminderIDs":["u-42/1794736800/1"],"episodeStartedAt":"2026-11-15T10:00:00Z","createdAt":"2026-11-23T08:00:00.004Z"}"#
    static let heartbeatFixture =
        #"{"type":"heartbeat","id":"u-42/heartbeat/1795000000","userID":"u-42","lastReportAt":"2026-11-24T12:00:00Z","createdAt":"2026-11-24T18:00:00.001Z"}"#

    /// A reminder produced by the policy encodes to the fixed example exactly.
    @Test func reminderFromPolicyMatchesFixture() {
        var harness = PolicyHarness()
        harness.report(Fixtures.report(.whileInUse, at: "2026-11-15T10:00:00Z"))
        harness.fire(at: Fixtures.date("2026-11-22T10:00:00.012Z"))
        #expect(harness.events.map(\.json) == [Self.reminderFixture])
    }

    /// A withdraw produced by the policy encodes to the fixed example exactly.
    @Test func withdrawFromPolicyMatchesFixture() {
        var harness = PolicyHarness()
        harness.report(Fixtures.report(.whileInUse, at: "2026-11-15T10:00:00Z"))
        harness.fire(at: Fixtures.date("2026-11-22T10:00:00.012Z"))
        harness.report(
            Fixtures.report(.always, at: "2026-11-23T07:59:00Z"), receivedAt: Fixtures.date("2026-11-23T08:00:00.004Z"))
        #expect(harness.events.last?.json == Self.withdrawFixture)
    }

    /// A heartbeat encodes to the fixed example exactly.
    @Test func heartbeatMatchesFixture() {
        let event = SinkEvent.heartbeat(
            .init(
                userID: Fixtures.userID(), lastReportAt: Fixtures.date("2026-11-24T12:00:00Z"),
                dueAt: Date(timeIntervalSince1970: 1_795_000_000), createdAt: Fixtures.date("2026-11-24T18:00:00.001Z"))
        )
        #expect(event.json == Self.heartbeatFixture)
    }

    /// Each event kind has exactly its documented keys, in order, and parses as JSON.
    @Test func eventsHaveExactlyTheDesignKeys() throws {
        let expected: [String: [String]] = [
            "reminder": [
                "type", "id", "userID", "title", "body", "reason", "errors", "sequence", "episodeStartedAt", "dueAt",
                "channel", "because", "locale", "platform", "createdAt",
            ],
            "withdraw": ["type", "id", "userID", "reminderIDs", "episodeStartedAt", "createdAt"],
            "heartbeat": ["type", "id", "userID", "lastReportAt", "createdAt"],
        ]
        for fixture in [Self.reminderFixture, Self.withdrawFixture, Self.heartbeatFixture] {
            guard case .object(let object) = try JSONParser.parse(fixture), case .string(let type)? = object["type"]
            else {
                Issue.record("fixture does not parse")
                continue
            }
            #expect(object.keys == expected[type])
        }
    }

    /// Titles with quotes, newlines and non-ASCII text are escaped, and parse back unchanged.
    @Test func eventTextIsEscaped() throws {
        let title = "Trips \"paused\"\nBitte – Standort „Immer“ erlauben"
        let event = SinkEvent.reminder(
            .init(
                userID: Fixtures.userID(), title: title, body: "b", reason: .locationNotAuthorizedAlways,
                errors: [.locationNotAuthorizedAlways], sequence: 1, episodeStartedAt: Date(timeIntervalSince1970: 0),
                dueAt: Date(timeIntervalSince1970: 0), createdAt: Date(timeIntervalSince1970: 0)))
        guard case .object(let object) = try JSONParser.parse(event.jsonBytes) else {
            Issue.record("not an object")
            return
        }
        #expect(object["title"] == JSONValue.string(title))
    }
}

struct UserStatusTests {
    /// The user status of openapi.yaml, byte for byte, for a user in an open episode.
    @Test func userStatusMatchesDesignShape() {
        var harness = PolicyHarness()
        harness.report(
            Fixtures.report(
                .whileInUse, at: "2026-11-15T10:00:00Z", notifications: .authorized, timeZone: "Europe/Berlin"))
        harness.report(Fixtures.report(.whileInUse, at: "2026-11-16T10:00:00Z"))
        harness.report(Fixtures.report(.whileInUse, at: "2026-11-17T10:00:00.5Z"))
        let status = UserStatus(record: harness.record!, policy: harness.policy, daemonStartedAt: nil)!
        let expected =
            #"{"userID":"u-42","permissions":{"location":"whileInUse","accuracy":"full","locationServices":true,"notifications":"authorized","observedAt":"2026-11-17T10:00:00.500Z","timeZone":"Europe/Berlin","motion":"unknown"},"errors":["locationNotAuthorizedAlways"],"alwaysAccess":false,"episode":{"startedAt":"2026-11-15T10:00:00Z","remindersDelivered":0,"remindersSuppressed":0,"remindersHeldOut":0,"opening":"first","opened":0,"asks":0,"asksShown":0,"asksAccepted":0},"nextReminderAt":"2026-11-22T10:00:00Z","lastReminderAt":null,"reportCount":3,"lastReportAt":"2026-11-17T10:00:00.500Z","locale":null,"push":null,"services":{},"group":"default","platform":null,"appVersion":null}"#
        #expect(String(decoding: status.jsonBytes, as: UTF8.self) == expected)
    }

    /// With Always access there is no episode and no next reminder; the last reminder stays.
    @Test func userStatusWithAlwaysAccess() {
        var harness = PolicyHarness()
        harness.report(Fixtures.report(.denied, at: "2026-11-15T10:00:00Z"))
        harness.run(until: Fixtures.date("2026-11-23T00:00:00Z"))
        harness.report(Fixtures.report(.always, at: "2026-11-24T10:00:00Z"))
        let status = UserStatus(record: harness.record!, policy: harness.policy, daemonStartedAt: nil)!
        #expect(status.alwaysAccess)
        #expect(status.episode == nil)
        #expect(status.nextReminderAt == nil)
        #expect(status.lastReminderAt == Fixtures.date("2026-11-22T10:00:00Z"))
        #expect(status.errors.isEmpty)
    }
}
