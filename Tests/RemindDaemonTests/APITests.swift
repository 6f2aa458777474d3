import Foundation
import HummingbirdTesting
import NIOCore
import RemindAPI
import RemindCore
import RemindTesting
import Testing

/// The HTTP API (docs/api.md, openapi.yaml), in process: exact JSON shapes and every error case. The tests
/// are split by area over `APITests+*.swift`; this file holds reports and history.
///
/// Time is the `ManualClock`'s wall time, which starts at 2026-11-15T10:00:00Z.
@Suite(.ownThread)
struct APITests {
    /// The user status openapi.yaml shows for `u-42` after one whileInUse report at the clock's start.
    static let whileInUseStatus = """
        {"userID":"u-42",
         "permissions":{"location":"whileInUse","accuracy":"full","locationServices":true,
                        "notifications":"authorized","observedAt":"2026-11-15T10:00:00Z","timeZone":"Europe/Berlin",
                        "motion":"unknown"},
         "errors":["locationNotAuthorizedAlways"],"alwaysAccess":false,
         "episode":{"startedAt":"2026-11-15T10:00:00Z","remindersDelivered":0,"remindersSuppressed":0,"remindersHeldOut":0,
                    "opening":"first","opened":0,"asks":0,"asksShown":0,"asksAccepted":0},
         "nextReminderAt":"2026-11-22T10:00:00Z","lastReminderAt":null,
         "reportCount":1,"lastReportAt":"2026-11-15T10:00:00Z","locale":null,"push":null,"services":{},"group":"default","platform":null,"appVersion":null}
        """

    /// A report answers 200 with the user status and the ask (none: `inApp` is off), every key
    /// of openapi.yaml and nothing else.
    @Test func reportAnswersUserStatusWhenValid() async throws {
        try await withAPI { _, client in
            let response = try await client.post(
                "/v1/users/u-42/reports",
                #"{"location":"whileInUse","notifications":"authorized","timeZone":"Europe/Berlin","extra":[1]}"#)
            #expect(response.status == .ok)
            try expectJSON(response, equals: String(Self.whileInUseStatus.dropLast()) + #","ask":null}"#)
            try expectJSON(try await client.get("/v1/users/u-42"), equals: Self.whileInUseStatus)
        }
    }

    /// Absent fields take their defaults: full accuracy, services on, notifications
    /// `unknown`, no time zone, observed when received.
    @Test func reportFillsDefaultsWhenFieldsAreAbsent() async throws {
        try await withAPI { api, client in
            api.clock.advance(by: .milliseconds(1_250))
            let response = try await client.report("u-1", #"{"location":"always"}"#)
            try expectJSON(
                response,
                equals: """
                    {"userID":"u-1",
                     "permissions":{"location":"always","accuracy":"full","locationServices":true,
                                    "notifications":"unknown","observedAt":"2026-11-15T10:00:01.250Z","timeZone":null,
                                    "motion":"unknown"},
                     "errors":[],"alwaysAccess":true,"episode":null,"nextReminderAt":null,"lastReminderAt":null,
                     "reportCount":1,"lastReportAt":"2026-11-15T10:00:01.250Z","locale":null,"push":null,
                     "services":{},"group":null,"platform":null,"appVersion":null,"ask":null}
                    """)
        }
    }

    /// A report identical to the current state adds no history entry but counts, and moves
    /// `lastReportAt`; the notifications and time zone are kept from before when absent.
    @Test func identicalReportIncrementsReportCount() async throws {
        try await withAPI { api, client in
            let body = #"{"location":"whileInUse","notifications":"authorized","timeZone":"Europe/Berlin"}"#
            try await client.report("u-42", body)
            api.clock.advance(by: .seconds(60))
            let second = try await client.report("u-42", #"{"location":"whileInUse"}"#)
            let status = try second.object()
            #expect(status["reportCount"] == .int(2))
            #expect(status["lastReportAt"] == .string("2026-11-15T10:01:00Z"))
            guard case .object(let episode)? = status["episode"], case .object(let permissions)? = status["permissions"]
            else {
                Issue.record("no episode or permissions: \(second.text)")
                return
            }
            #expect(episode["startedAt"] == .string("2026-11-15T10:00:00Z"))
            #expect(status["nextReminderAt"] == .string("2026-11-22T10:00:00Z"))
            #expect(permissions["notifications"] == .string("authorized"))
            #expect(permissions["timeZone"] == .string("Europe/Berlin"))
            let history = try await client.get("/v1/users/u-42/history")
            guard case .array(let entries)? = try history.object()["entries"] else {
                Issue.record("no entries: \(history.text)")
                return
            }
            #expect(entries.count == 1)
        }
    }

    /// History lists changes newest `observedAt` first, a late older report included, with
    /// exactly `observedAt`, `receivedAt`, `permissions` and `errors`; `limit` cuts it.
    @Test func historyListsChangesNewestFirst() async throws {
        try await withAPI { api, client in
            try await client.report("u-42", #"{"location":"whileInUse","observedAt":"2026-11-15T10:00:00Z"}"#)
            api.clock.advance(by: .minutes(10))
            try await client.report("u-42", #"{"location":"always","observedAt":"2026-11-15T10:05:00Z"}"#)
            api.clock.advance(by: .minutes(10))
            try await client.report("u-42", #"{"location":"denied","observedAt":"2026-11-15T09:00:00Z"}"#)
            let always = """
                {"observedAt":"2026-11-15T10:05:00Z","receivedAt":"2026-11-15T10:10:00Z",
                 "permissions":{"location":"always","accuracy":"full","locationServices":true,
                                "notifications":"unknown","timeZone":null,"motion":"unknown"},"errors":[]}
                """
            let whileInUse = """
                {"observedAt":"2026-11-15T10:00:00Z","receivedAt":"2026-11-15T10:00:00Z",
                 "permissions":{"location":"whileInUse","accuracy":"full","locationServices":true,
                                "notifications":"unknown","timeZone":null,"motion":"unknown"},"errors":["locationNotAuthorizedAlways"]}
                """
            let denied = """
                {"observedAt":"2026-11-15T09:00:00Z","receivedAt":"2026-11-15T10:20:00Z",
                 "permissions":{"location":"denied","accuracy":"full","locationServices":true,
                                "notifications":"unknown","timeZone":null,"motion":"unknown"},"errors":["locationNotAuthorizedAlways"]}
                """
            let all = try await client.get("/v1/users/u-42/history")
            #expect(all.status == .ok)
            try expectJSON(
                all, equals: #"{"userID":"u-42","entries":[\#(always),\#(whileInUse),\#(denied)],"engagement":[]}"#)
            let one = try await client.get("/v1/users/u-42/history?limit=1")
            try expectJSON(one, equals: #"{"userID":"u-42","entries":[\#(always)],"engagement":[]}"#)
            let two = try await client.get("/v1/users/u-42/history?limit=2")
            try expectJSON(two, equals: #"{"userID":"u-42","entries":[\#(always),\#(whileInUse)],"engagement":[]}"#)
        }
    }

    /// A bad `limit` on history is a 400 naming `limit`; an unknown user's history is a 404.
    @Test func historyRefusesBadLimitAndUnknownUser() async throws {
        try await withAPI { _, client in
            try await client.report("u-42", #"{"location":"whileInUse"}"#)
            for query in ["limit=0", "limit=-1", "limit=ten", "limit="] {
                try expectProblem(try await client.get("/v1/users/u-42/history?\(query)"), status: 400, field: "limit")
            }
            try expectProblem(try await client.get("/v1/users/nobody/history"), status: 404, field: nil)
        }
    }

    /// `u%40x.com` is the user `u@x.com`, found under both spellings and stored under an
    /// encoded file name inside `users/`.
    @Test func percentEncodedUserIDIsDecoded() async throws {
        try await withAPI { api, client in
            let response = try await client.report("u%40x.com", #"{"location":"whileInUse"}"#)
            #expect(try response.object()["userID"] == .string("u@x.com"))
            for path in ["/v1/users/u%40x.com", "/v1/users/u@x.com", "/v1/users/u%40x%2Ecom"] {
                let found = try await client.get(path)
                #expect(found.status == .ok, "\(path)")
                #expect(try found.object()["userID"] == .string("u@x.com"))
            }
            try await api.checkpoint()
            let file = await api.userFilePath("u@x.com")
            #expect(file.hasPrefix(api.stateDirectory + "/users/"))
            #expect(FileManager.default.fileExists(atPath: file))
            #expect(!(file.split(separator: "/").last ?? "").contains("@"))
        }
    }

    /// IDs at the edge of the rules are accepted: 128 characters, and every allowed symbol.
    /// Dot-only IDs other than `.` and `..` are valid, and their files stay inside `users/`.
    @Test func reportAcceptsUserIDsAtTheLimits() async throws {
        try await withAPI { api, client in
            let longest = String(repeating: "a", count: 128)
            try await client.report(longest, #"{"location":"whileInUse"}"#)
            #expect(try await client.get("/v1/users/\(longest)").status == .ok)
            let symbols = "Az09._~@+:-"
            let response = try await client.report(symbols, #"{"location":"whileInUse"}"#)
            #expect(try response.object()["userID"] == .string(symbols))
            for id in ["...", ".a", "%2E%2E%2E%2E"] {
                try await client.report(id, #"{"location":"whileInUse"}"#)
            }
            let status = try await client.get("/v1/status").object()
            #expect(status["users"] == .int(5))
            try await api.checkpoint()
            let userFiles = APIHarness.files(under: api.stateDirectory + "/users")
            #expect(userFiles.count == 5)
            #expect(userFiles.keys.allSatisfy { $0.split(separator: "/").count == 3 && $0.hasSuffix(".json") })
            #expect(try FileManager.default.contentsOfDirectory(atPath: api.root) == ["state"])
        }
    }

    /// A body of exactly 64 KiB is read; one byte more is a 413 problem that stores nothing.
    @Test func reportRefusesBodyOver64KiB() async throws {
        try await withAPI { api, client in
            let json = #"{"location":"whileInUse"}"#
            let limit = APIPaths.maximumBodySize
            #expect(limit == 65_536)
            let tooLarge = json + String(repeating: " ", count: limit + 1 - json.utf8.count)
            let before = APIHarness.files(under: api.root)
            try expectProblem(try await client.post("/v1/users/u-42/reports", tooLarge), status: 413, field: nil)
            #expect(APIHarness.files(under: api.root) == before)
            try expectProblem(try await client.get("/v1/users/u-42"), status: 404, field: nil)

            let atLimit = json + String(repeating: " ", count: limit - json.utf8.count)
            #expect(atLimit.utf8.count == limit)
            #expect(try await client.post("/v1/users/u-42/reports", atLimit).status == .ok)
        }
    }

    /// Boundary values that are valid: `observedAt` exactly 300 s ahead, free text of 64
    /// characters, a JSON `null` for an optional field.
    @Test func reportAcceptsValuesAtTheLimits() async throws {
        try await withAPI { api, client in
            let text = String(repeating: "p", count: 64)
            let body =
                #"{"location":"allowOnce","observedAt":"\#(api.wallTime(plus: 300))","platform":"\#(text)","appVersion":"\#(text)","timeZone":null}"#
            let response = try await client.report("u-42", body)
            let permissions = try response.object()["permissions"]
            guard case .object(let permissions)? = permissions else {
                Issue.record("no permissions: \(response.text)")
                return
            }
            #expect(permissions["observedAt"] == .string("2026-11-15T10:05:00Z"))
        }
    }

    /// A late report older than the newest observation is kept in history and can move the
    /// episode's start earlier, but never overrides the current state.
    @Test func olderReportNeverOverridesNewerObservation() async throws {
        try await withAPI { api, client in
            try await client.report("u-42", #"{"location":"whileInUse","observedAt":"2026-11-15T10:00:00Z"}"#)
            api.clock.advance(by: .minutes(1))
            let late = try await client.report(
                "u-42", #"{"location":"denied","observedAt":"2026-11-15T10:30:00+01:00"}"#
            ).object()
            guard case .object(let permissions)? = late["permissions"], case .object(let episode)? = late["episode"]
            else {
                Issue.record("no permissions or episode")
                return
            }
            #expect(permissions["location"] == .string("whileInUse"))
            #expect(permissions["observedAt"] == .string("2026-11-15T10:00:00Z"))
            #expect(episode["startedAt"] == .string("2026-11-15T09:30:00Z"))
            #expect(late["nextReminderAt"] == .string("2026-11-22T09:30:00Z"))
            #expect(late["reportCount"] == .int(2))
            let history = try await client.get("/v1/users/u-42/history").object()
            guard case .array(let entries)? = history["entries"], entries.count == 2,
                case .object(let oldest) = entries[1]
            else {
                Issue.record("expected two entries")
                return
            }
            #expect(oldest["observedAt"] == .string("2026-11-15T09:30:00Z"))
        }
    }

    /// Concurrent reports for one user are all counted, one after the other; concurrent
    /// reports for different users all arrive.
    @Test func concurrentReportsAreAllStored() async throws {
        try await withAPI { _, client in
            try await withThrowingTaskGroup(of: Int.self) { group in
                for index in 0..<40 {
                    group.addTask {
                        let user = index < 20 ? "u-42" : "u-\(index)"
                        let response = try await client.post("/v1/users/\(user)/reports", #"{"location":"whileInUse"}"#)
                        return Int(response.status.code)
                    }
                }
                for try await status in group { #expect(status == 200) }
            }
            let user = try await client.get("/v1/users/u-42").object()
            #expect(user["reportCount"] == .int(20))
            let status = try await client.get("/v1/status").object()
            #expect(status["users"] == .int(21))
            #expect(status["openEpisodes"] == .int(21))
        }
    }
}
