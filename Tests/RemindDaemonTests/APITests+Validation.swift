import Foundation
import HummingbirdTesting
import RemindCore
import RemindTesting
import Testing

/// A request the API must refuse with a 400 naming `field` (nil: the body as a whole).
struct Rejection: Sendable, CustomTestStringConvertible {
    var name: String
    var path: String = "/v1/users/u-42/reports"
    var body: String
    var field: String?

    var testDescription: String { name }

    static let validBody = #"{"location":"whileInUse"}"#

    static let bodies: [Rejection] = [
        Rejection(name: "missing location", body: #"{"accuracy":"full"}"#, field: "location"),
        Rejection(
            name: "APNs token not hex", body: #"{"location":"always","push":{"service":"apns","token":"xyz"}}"#,
            field: "push.token"),
        Rejection(
            name: "FCM token too long",
            body: #"{"location":"always","push":{"service":"fcm","token":"\#(String(repeating: "a", count: 4097))"}}"#,
            field: "push.token"),
        Rejection(name: "locale with underscore", body: #"{"location":"always","locale":"de_CH"}"#, field: "locale"),
        Rejection(name: "null location", body: #"{"location":null}"#, field: "location"),
        Rejection(name: "unknown location", body: #"{"location":"sometimes"}"#, field: "location"),
        Rejection(name: "location as a number", body: #"{"location":3}"#, field: "location"),
        Rejection(name: "unknown accuracy", body: #"{"location":"always","accuracy":"medium"}"#, field: "accuracy"),
        Rejection(
            name: "notifications unknown (never reported)", body: #"{"location":"always","notifications":"unknown"}"#,
            field: "notifications"),
        Rejection(
            name: "locationServices as a string", body: #"{"location":"always","locationServices":"yes"}"#,
            field: "locationServices"),
        Rejection(
            name: "observedAt as a number", body: #"{"location":"always","observedAt":1794736800}"#,
            field: "observedAt"),
        Rejection(
            name: "observedAt not RFC 3339", body: #"{"location":"always","observedAt":"15/11/2026 10:00"}"#,
            field: "observedAt"),
        // The clock reads 2026-11-15T10:00:00Z: this is 301 s ahead.
        Rejection(
            name: "observedAt 301 s in the future", body: #"{"location":"always","observedAt":"2026-11-15T10:05:01Z"}"#,
            field: "observedAt"),
        Rejection(
            name: "invalid timeZone", body: #"{"location":"always","timeZone":"Mars/Olympus_Mons"}"#, field: "timeZone"
        ),
        Rejection(
            name: "platform of 65 characters",
            body: #"{"location":"always","platform":"\#(String(repeating: "x", count: 65))"}"#, field: "platform"),
        Rejection(
            name: "appVersion of 65 characters",
            body: #"{"location":"always","appVersion":"\#(String(repeating: "1", count: 65))"}"#, field: "appVersion"),
        Rejection(
            name: "unknown canPrompt name", body: #"{"location":"whileInUse","canPrompt":["location","camera"]}"#,
            field: "canPrompt[1]"),
        Rejection(
            name: "canPrompt not a list", body: #"{"location":"whileInUse","canPrompt":"location"}"#, field: "canPrompt"
        ),
        Rejection(name: "body not JSON", body: "location=always", field: nil),
        Rejection(name: "truncated JSON", body: #"{"location":"always""#, field: nil),
        Rejection(name: "empty body", body: "", field: nil),
        Rejection(name: "body a JSON array", body: #"[{"location":"always"}]"#, field: nil),
        Rejection(name: "body a JSON string", body: #""always""#, field: nil),
    ]

    static let userIDs: [Rejection] = [
        Rejection(name: "%2E%2E", path: "/v1/users/%2E%2E/reports", body: validBody, field: "userID"),
        Rejection(name: "raw ..", path: "/v1/users/../reports", body: validBody, field: "userID"),
        Rejection(name: "%2E", path: "/v1/users/%2E/reports", body: validBody, field: "userID"),
        Rejection(name: "a%2Fb", path: "/v1/users/a%2Fb/reports", body: validBody, field: "userID"),
        Rejection(name: "..%2F..%2Fetc", path: "/v1/users/..%2F..%2Fetc/reports", body: validBody, field: "userID"),
        Rejection(
            name: "129 characters", path: "/v1/users/\(String(repeating: "a", count: 129))/reports", body: validBody,
            field: "userID"),
        Rejection(name: "%ZZ", path: "/v1/users/%ZZ/reports", body: validBody, field: "userID"),
        Rejection(name: "truncated escape", path: "/v1/users/a%4/reports", body: validBody, field: "userID"),
        Rejection(name: "space", path: "/v1/users/a%20b/reports", body: validBody, field: "userID"),
        Rejection(name: "empty", path: "/v1/users//reports", body: validBody, field: "userID"),
        Rejection(name: "NUL", path: "/v1/users/a%00b/reports", body: validBody, field: "userID"),
        Rejection(name: "non-ASCII", path: "/v1/users/%C3%A9/reports", body: validBody, field: "userID"),
    ]
}

extension APITests {
    /// Every invalid report body is a 400 problem naming the field, and nothing is stored:
    /// no file changes anywhere, none appears outside the state directory, the user is unknown.
    @Test(arguments: Rejection.bodies)
    func reportIsRefusedWhenBodyIsInvalid(_ rejection: Rejection) async throws {
        try await expectRefusedWithoutTrace(rejection)
    }

    /// Malformed user IDs in any encoding are a 400 naming `userID`, with no trace on disk.
    @Test(arguments: Rejection.userIDs)
    func reportIsRefusedWhenUserIDIsMalformed(_ rejection: Rejection) async throws {
        try await expectRefusedWithoutTrace(rejection)
    }

    /// Malformed user IDs are refused the same way on every user route, before any lookup.
    @Test func everyUserRouteRefusesMalformedUserIDs() async throws {
        try await withAPI { api, client in
            for id in ["%2E%2E", "a%2Fb", String(repeating: "b", count: 129), "%ZZ"] {
                for (method, suffix) in [("GET", ""), ("DELETE", ""), ("GET", "/history"), ("GET", "/explain")] {
                    let path = "/v1/users/\(id)\(suffix)"
                    let response =
                        method == "GET" ? try await client.get(path) : try await client.delete(path)
                    try expectProblem(response, status: 400, field: "userID")
                }
            }
            #expect(try FileManager.default.contentsOfDirectory(atPath: api.root) == ["state"])
        }
    }

    private func expectRefusedWithoutTrace(
        _ rejection: Rejection, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        try await withAPI { api, client in
            let before = APIHarness.files(under: api.root)
            let response = try await client.post(rejection.path, rejection.body)
            try expectProblem(response, status: 400, field: rejection.field, sourceLocation: sourceLocation)
            #expect(APIHarness.files(under: api.root) == before, sourceLocation: sourceLocation)
            #expect(
                try FileManager.default.contentsOfDirectory(atPath: api.root) == ["state"],
                sourceLocation: sourceLocation)
            try expectProblem(try await client.get("/v1/users/u-42"), status: 404, field: nil)
            let status = try await client.get("/v1/status").object()
            #expect(status["users"] == .int(0), sourceLocation: sourceLocation)
            try await api.checkpoint()
            #expect(APIHarness.files(under: api.stateDirectory + "/users").isEmpty, sourceLocation: sourceLocation)
            #expect(
                try FileManager.default.contentsOfDirectory(atPath: api.root) == ["state"],
                sourceLocation: sourceLocation)
            let metrics = try await client.get("/metrics").text
            #expect(metrics.contains("\nremindd_reports_rejected_total 1\n") || rejection.field == "userID")
        }
    }
}
