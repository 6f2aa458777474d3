import Foundation
import HummingbirdTesting
import RemindCore
import RemindTesting
import Testing

extension APITests {
    /// An unknown user is a 404 problem on every read route.
    @Test func unknownUserIsNotFound() async throws {
        try await withAPI { _, client in
            for path in ["/v1/users/nobody", "/v1/users/nobody/history", "/v1/users/nobody/explain"] {
                try expectProblem(try await client.get(path), status: 404, field: nil)
            }
        }
    }

    /// DELETE answers 204 with no body, removes the user's file and schedule; afterwards the
    /// user is a 404 everywhere and a second DELETE is a 404.
    @Test func deleteForgetsUser() async throws {
        try await withAPI(sink: true) { api, client in
            try await client.report("u-42", #"{"location":"whileInUse"}"#)
            try await client.report("u-7", #"{"location":"whileInUse"}"#)
            try await api.checkpoint()
            let file = await api.userFilePath("u-42")
            #expect(FileManager.default.fileExists(atPath: file))

            let deleted = try await client.delete("/v1/users/u-42")
            #expect(deleted.status == .noContent)
            #expect(deleted.body.readableBytes == 0)
            #expect(!FileManager.default.fileExists(atPath: file))
            for path in ["/v1/users/u-42", "/v1/users/u-42/history", "/v1/users/u-42/explain"] {
                try expectProblem(try await client.get(path), status: 404, field: nil)
            }
            try expectProblem(try await client.delete("/v1/users/u-42"), status: 404, field: nil)

            try await api.checkpoint()
            #expect(!FileManager.default.fileExists(atPath: file))
            let status = try await client.get("/v1/status").object()
            #expect(status["users"] == .int(1))
            #expect(status["pendingReminders"] == .int(1))
            let reminders = try await client.get("/v1/reminders").text
            #expect(!reminders.contains("u-42"))
            #expect(await api.store.peekEvent(for: APIHarness.sinkName) == nil)
        }
    }

    /// DELETE of a user never seen is a 404 problem and creates nothing.
    @Test func deleteOfUnknownUserIsNotFound() async throws {
        try await withAPI { api, client in
            let before = APIHarness.files(under: api.root)
            try expectProblem(try await client.delete("/v1/users/nobody"), status: 404, field: nil)
            #expect(APIHarness.files(under: api.root) == before)
        }
    }

    /// Explain has exactly `userID`, `nextReminderAt` and `reasons` of `code` and `text`.
    @Test func explainShowsWhyAReminderIsDue() async throws {
        try await withAPI { _, client in
            try await client.report("u-42", #"{"location":"whileInUse"}"#)
            let response = try await client.get("/v1/users/u-42/explain")
            #expect(response.status == .ok)
            #expect(response.contentType == "application/json")
            let explanation = try response.object()
            #expect(explanation.keys.sorted() == ["nextReminderAt", "reasons", "userID"])
            #expect(explanation["userID"] == .string("u-42"))
            #expect(explanation["nextReminderAt"] == .string("2026-11-22T10:00:00Z"))
            guard case .array(let reasons)? = explanation["reasons"] else {
                Issue.record("no reasons: \(response.text)")
                return
            }
            var codes: [String] = []
            for reason in reasons {
                guard case .object(let reason) = reason, case .string(let code)? = reason["code"],
                    case .string(let text)? = reason["text"]
                else {
                    Issue.record("reason is not {code, text}: \(response.text)")
                    continue
                }
                #expect(reason.keys.sorted() == ["code", "text"])
                #expect(!text.isEmpty)
                codes.append(code)
            }
            #expect(codes == ["episodeOpen", "due", "push"])
        }
    }

    /// Explain for a user with Always access: no reminder, and it says why.
    @Test func explainShowsNoReminderWhenAlwaysGranted() async throws {
        try await withAPI { _, client in
            try await client.report("u-42", #"{"location":"always"}"#)
            let explanation = try await client.get("/v1/users/u-42/explain").object()
            #expect(explanation["nextReminderAt"] == .null)
            guard case .array(let reasons)? = explanation["reasons"], case .object(let first)? = reasons.first else {
                Issue.record("no reasons")
                return
            }
            #expect(first["code"] == .string("alwaysAccess"))
        }
    }

    /// Pending reminders come soonest first with exactly `userID`, `dueAt`, `sequence`,
    /// `reason`; `limit` and `dueBefore` (exclusive, any RFC 3339 offset) cut the list.
    @Test func remindersListPendingSoonestFirst() async throws {
        try await withAPI(configure: { configuration, _ in configuration.notification.notificationTriggerDelay = 86_400
        }) { _, client in
            try await client.report("u-c", #"{"location":"denied","observedAt":"2026-11-15T09:00:00Z"}"#)
            try await client.report("u-a", #"{"location":"whileInUse","observedAt":"2026-11-15T07:00:00Z"}"#)
            try await client.report("u-always", #"{"location":"always"}"#)
            try await client.report(
                "u-b", #"{"location":"always","locationServices":false,"observedAt":"2026-11-15T08:00:00Z"}"#)
            let a =
                #"{"userID":"u-a","dueAt":"2026-11-16T07:00:00Z","sequence":1,"reason":"locationNotAuthorizedAlways"}"#
            let b =
                #"{"userID":"u-b","dueAt":"2026-11-16T08:00:00Z","sequence":1,"reason":"locationServicesTurnedOff"}"#
            let c =
                #"{"userID":"u-c","dueAt":"2026-11-16T09:00:00Z","sequence":1,"reason":"locationNotAuthorizedAlways"}"#
            let all = try await client.get("/v1/reminders")
            #expect(all.status == .ok)
            try expectJSON(all, equals: #"{"reminders":[\#(a),\#(b),\#(c)]}"#)
            try expectJSON(try await client.get("/v1/reminders?limit=2"), equals: #"{"reminders":[\#(a),\#(b)]}"#)
            try expectJSON(
                try await client.get("/v1/reminders?dueBefore=2026-11-16T08:30:00Z"),
                equals: #"{"reminders":[\#(a),\#(b)]}"#)
            try expectJSON(
                try await client.get("/v1/reminders?dueBefore=2026-11-16T08:00:00Z"),
                equals: #"{"reminders":[\#(a)]}"#)
            try expectJSON(
                try await client.get("/v1/reminders?dueBefore=2026-11-16T09%3A30%3A00%2B01%3A00"),
                equals: #"{"reminders":[\#(a),\#(b)]}"#)
            try expectJSON(
                try await client.get("/v1/reminders?dueBefore=2026-11-17T00:00:00Z&limit=1"),
                equals: #"{"reminders":[\#(a)]}"#)
            try expectJSON(
                try await client.get("/v1/reminders?dueBefore=2026-11-16T07:00:00Z"), equals: #"{"reminders":[]}"#)
        }
    }

    /// A `dueBefore` that is not RFC 3339 and a `limit` that is not a positive integer are
    /// 400 problems naming the parameter.
    @Test func remindersRefuseBadParameters() async throws {
        try await withAPI { _, client in
            for value in ["tomorrow", "2026-11-16", "1794736800", ""] {
                try expectProblem(
                    try await client.get("/v1/reminders?dueBefore=\(value)"), status: 400, field: "dueBefore")
            }
            for value in ["0", "-3", "many", "1.5", "", "100001"] {
                try expectProblem(try await client.get("/v1/reminders?limit=\(value)"), status: 400, field: "limit")
            }
            #expect(try await client.get("/v1/reminders?limit=100000").status == .ok)
            try await client.report("u-42", #"{"location":"whileInUse"}"#)
            try expectProblem(
                try await client.get("/v1/users/u-42/history?limit=1000001"), status: 400, field: "limit")
            #expect(try await client.get("/v1/users/u-42/history?limit=1000000").status == .ok)
        }
    }
}

extension APITests {
    /// The status shows the last reported platform and app version; a report that only
    /// restates the permissions but carries a new app version is no repeat: its answer, and a
    /// GET after it, show the new version at once.
    @Test func statusShowsTheLastPlatformAndAppVersion() async throws {
        try await withAPI { _, client in
            let before = try await client.get("/v1/users/u-9")
            #expect(before.status == .notFound)
            let first = try await client.report(
                "u-9", #"{"location":"whileInUse","platform":"iOS 18.1","appVersion":"4.2.0"}"#)
            #expect(first.text.hasSuffix(#""platform":"iOS 18.1","appVersion":"4.2.0","ask":null}"#))
            let repeated = try await client.report("u-9", #"{"location":"whileInUse"}"#)
            #expect(repeated.text.hasSuffix(#""platform":"iOS 18.1","appVersion":"4.2.0","ask":null}"#))
            let updated = try await client.report("u-9", #"{"location":"whileInUse","appVersion":"4.3.0"}"#)
            #expect(updated.text.hasSuffix(#""platform":"iOS 18.1","appVersion":"4.3.0","ask":null}"#))
            let shown = try await client.get("/v1/users/u-9")
            #expect(shown.text.hasSuffix(#""platform":"iOS 18.1","appVersion":"4.3.0"}"#))
        }
    }
}
