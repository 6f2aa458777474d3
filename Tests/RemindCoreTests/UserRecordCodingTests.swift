import Foundation
import RemindCore
import RemindTesting
import Testing

struct UserRecordCodingTests {
    /// A record with every kind of content: a run with a later observation, an open episode
    /// with a delivery and a suppression, a closed episode, a heartbeat.
    static let record = UserRecord(
        userID: Fixtures.userID("u-42"),
        history: [
            HistoryEntry(
                observedAt: Fixtures.date("2026-11-15T10:00:00Z"),
                lastObservedAt: Fixtures.date("2026-11-16T10:00:00.500Z"),
                receivedAt: Fixtures.date("2026-11-15T10:00:00.250Z"),
                permissions: Permissions(
                    location: .whileInUse, accuracy: .reduced, notifications: .authorized, timeZone: "Europe/Berlin")),
            HistoryEntry(
                observedAt: Fixtures.date("2026-11-10T08:00:00Z"),
                receivedAt: Fixtures.date("2026-11-10T08:00:01Z"),
                permissions: Permissions(location: .always, locationServices: false, notifications: .denied)),
        ],
        episodes: [
            Episode(
                startedAt: Fixtures.date("2026-11-10T08:00:00Z"),
                deliveries: [
                    Delivery(
                        id: "u-42/1794297600/1", sequence: 1, dueAt: Fixtures.date("2026-11-17T08:00:00Z"),
                        deliveredAt: Fixtures.date("2026-11-17T08:00:00.012Z"))
                ],
                suppressedCount: 1),
            Episode(
                startedAt: Fixtures.date("2026-11-01T00:00:00Z"), closedAt: Fixtures.date("2026-11-02T00:00:00Z"),
                isSuppressed: false),
        ],
        reportCount: 3,
        lastReportAt: Fixtures.date("2026-11-16T10:00:01Z"),
        lastHeartbeatAt: Fixtures.date("2026-11-16T16:00:01Z"),
        platform: "iOS",
        appVersion: "5.2 \"beta\"")

    static let expectedJSON =
        #"{"schemaVersion":1,"userID":"u-42","reportCount":3,"lastReportAt":"2026-11-16T10:00:01Z","#
        + #""lastHeartbeatAt":"2026-11-16T16:00:01Z","platform":"iOS","appVersion":"5.2 \"beta\"","#
        + #""permissions":{"location":"whileInUse","accuracy":"reduced","locationServices":true,"#
        + #""notifications":"authorized","observedAt":"2026-11-16T10:00:00.500Z","timeZone":"Europe/Berlin","motion":"unknown"},"#
        + #""errors":["locationNotAuthorizedAlways","preciseLocationNotEnabled"],"#
        + #""history":[{"observedAt":"2026-11-15T10:00:00Z","lastObservedAt":"2026-11-16T10:00:00.500Z","#
        + #""receivedAt":"2026-11-15T10:00:00.250Z","permissions":{"location":"whileInUse","accuracy":"reduced","#
        + #""locationServices":true,"notifications":"authorized","timeZone":"Europe/Berlin","motion":"unknown"},"#
        + #""errors":["locationNotAuthorizedAlways","preciseLocationNotEnabled"]},"#
        + #"{"observedAt":"2026-11-10T08:00:00Z","receivedAt":"2026-11-10T08:00:01Z","#
        + #""permissions":{"location":"always","accuracy":"full","locationServices":false,"notifications":"denied","#
        + #""timeZone":null,"motion":"unknown"},"errors":["locationServicesTurnedOff","notificationsTurnedOff"]}],"#
        + #""episodes":[{"startedAt":"2026-11-10T08:00:00Z","closedAt":null,"suppressedCount":1,"suppressed":false,"#
        + #""group":"default","reason":null,"deliveries":[{"id":"u-42/1794297600/1","sequence":1,"dueAt":"2026-11-17T08:00:00Z","#
        + #""deliveredAt":"2026-11-17T08:00:00.012Z"}]},"#
        + #"{"startedAt":"2026-11-01T00:00:00Z","closedAt":"2026-11-02T00:00:00Z","suppressedCount":0,"#
        + #""suppressed":false,"group":"default","reason":null,"deliveries":[]}]}"#

    /// The user file format is exactly these bytes: keys in order, compact, null for absent.
    @Test func handBuiltRecordEncodesToTheExpectedBytes() {
        #expect(String(decoding: Self.record.jsonBytes, as: UTF8.self) == Self.expectedJSON)
    }

    /// Decoding the expected bytes gives the record back.
    @Test func expectedBytesDecodeToTheRecord() throws {
        #expect(try UserRecord(json: Array(Self.expectedJSON.utf8)) == Self.record)
    }

    /// A record with nothing optional set still round-trips (nil platform, heartbeat, episodes).
    @Test func minimalRecordRoundTrips() throws {
        let record = UserRecord(
            userID: Fixtures.userID("a"),
            history: [
                HistoryEntry(
                    observedAt: Fixtures.date("1969-07-20T20:17:40Z"),
                    receivedAt: Fixtures.date("1969-07-20T20:17:41Z"),
                    permissions: Permissions(location: .always))
            ],
            reportCount: 1, lastReportAt: Fixtures.date("1969-07-20T20:17:41Z"))
        let json = String(decoding: record.jsonBytes, as: UTF8.self)
        #expect(json.contains(#""platform":null"#) && json.contains(#""episodes":[]"#))
        #expect(try UserRecord(json: record.jsonBytes) == record)
    }

    /// The top-level permissions repeat the newest history entry for readers; decoding takes
    /// the state from the history, so a hand-edited top level cannot disagree with it.
    @Test func decodingTakesCurrentStateFromHistory() throws {
        let rest = #""accuracy":"reduced","locationServices":true,"notifications":"authorized","observedAt""#
        let edited = Self.expectedJSON.replacingOccurrences(
            of: #""permissions":{"location":"whileInUse","# + rest, with: #""permissions":{"location":"always","# + rest
        )
        #expect(edited != Self.expectedJSON)
        #expect(try UserRecord(json: Array(edited.utf8)) == Self.record)
    }

    static func expectRejected(
        _ bytes: [UInt8], field: String? = nil, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        do {
            let record = try UserRecord(json: bytes)
            Issue.record("decoded \(record)", sourceLocation: sourceLocation)
        } catch {
            if let field {
                #expect(error.field == field, "\(error)", sourceLocation: sourceLocation)
            }
        }
    }

    /// Another schema version, or none, is refused naming schemaVersion.
    @Test func wrongSchemaVersionIsRejected() {
        for replacement in [
            #""schemaVersion":2"#, #""schemaVersion":0"#, #""schemaVersion":"1""#, #""schemaVersion":null"#,
        ] {
            let json = Self.expectedJSON.replacingOccurrences(of: #""schemaVersion":1"#, with: replacement)
            Self.expectRejected(Array(json.utf8), field: "schemaVersion")
        }
        let missing = Self.expectedJSON.replacingOccurrences(of: #""schemaVersion":1,"#, with: "")
        Self.expectRejected(Array(missing.utf8), field: "schemaVersion")
    }

    /// Every proper prefix of a valid file (a torn write) is refused.
    @Test func truncatedBytesAreRejected() {
        let bytes = Array(Self.expectedJSON.utf8)
        for length in 0..<bytes.count {
            Self.expectRejected(Array(bytes[..<length]))
        }
    }

    /// An empty file and binary garbage are refused.
    @Test func emptyFileAndGarbageAreRejected() {
        Self.expectRejected([])
        Self.expectRejected([0x00, 0x00, 0x00, 0x00])
        Self.expectRejected([0x7F, 0x45, 0x4C, 0x46, 0x02, 0x01, 0x01, 0x00])
        Self.expectRejected([0xFF, 0xFE, 0x7B, 0x00, 0x7D, 0x00])
        Self.expectRejected(Array("[]".utf8), field: "")
        Self.expectRejected(Array("null".utf8), field: "")
    }

    /// A record without history is meaningless (no current state) and is refused.
    @Test func missingOrEmptyHistoryIsRejected() {
        let start = Self.expectedJSON.range(of: #""history":["#)!.lowerBound
        let end = Self.expectedJSON.range(of: #""episodes":"#)!.lowerBound
        let missing = Self.expectedJSON.replacingCharacters(in: start..<end, with: "")
        Self.expectRejected(Array(missing.utf8), field: "history")
        let empty = Self.expectedJSON.replacingCharacters(in: start..<end, with: #""history":[],"#)
        Self.expectRejected(Array(empty.utf8), field: "history")
    }

    /// Broken members are refused naming their path.
    @Test func brokenMembersAreRejectedNamingTheirPath() {
        let cases: [(String, String, String)] = [
            (#""userID":"u-42""#, #""userID":"a/b""#, "userID"),
            (#""lastReportAt":"2026-11-16T10:00:01Z""#, #""lastReportAt":"soon""#, "lastReportAt"),
            (#""location":"always""#, #""location":"sometimes""#, "history[1].permissions.location"),
            (#""receivedAt":"2026-11-10T08:00:01Z""#, #""receivedAt":5"#, "history[1].receivedAt"),
            (#""startedAt":"2026-11-01T00:00:00Z""#, #""startedAt":null"#, "episodes[1].startedAt"),
        ]
        for (original, replacement, field) in cases {
            let json = Self.expectedJSON.replacingOccurrences(of: original, with: replacement)
            #expect(json != Self.expectedJSON, "\(original) not found")
            Self.expectRejected(Array(json.utf8), field: field)
        }
    }
}
