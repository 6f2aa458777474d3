import Foundation
import HummingbirdTesting
import RemindConfig
import RemindCore
import RemindTesting
import Testing

extension APITests {
    static func withServices(
        _ body: @Sendable (APIHarness, any TestClientProtocol) async throws -> Void
    ) async throws {
        try await withAPI(configure: { configuration, _ in
            configuration.services = [
                ServiceDefinition(name: "driving", requires: [.location, .always], optional: [.precise, .motion]),
                ServiceDefinition(name: "walking", requires: [.motion]),
            ]
        }) { api, client in try await body(api, client) }
    }

    /// The user status shows `permissions.motion` and each service's state with what is
    /// missing (docs/configuration.md), updated by the next report.
    @Test func userStatusShowsMotionAndServices() async throws {
        try await Self.withServices { _, client in
            let response = try await client.report(
                "u-42", #"{"location":"always","accuracy":"reduced","motion":"denied","locale":"de-CH"}"#)
            let status = try response.object()
            guard case .object(let permissions)? = status["permissions"] else { throw POSIXError(.EINVAL) }
            #expect(permissions["motion"] == .string("denied"))
            #expect(status["errors"] == .array([.string("preciseLocationNotEnabled"), .string("motionNotAuthorized")]))
            #expect(status["locale"] == .string("de-CH"))
            #expect(
                status["services"].map(canonicalJSON)
                    == canonicalJSON(
                        try JSONParser.parse(
                            #"{"driving":{"state":"degraded","missing":["precise","motion"]},"walking":{"state":"permissionMissing","missing":["motion"]}}"#
                        )))
            // The history entry carries motion too.
            let history = try await client.get("/v1/users/u-42/history")
            #expect(history.text.contains(#""motion":"denied""#))
            // Motion alone changes: the services follow; a report without motion keeps it.
            try await client.report("u-42", #"{"location":"always","motion":"authorized"}"#)
            let next = try await client.report("u-42", #"{"location":"whileInUse"}"#)
            #expect(
                try next.object()["services"].map(canonicalJSON)
                    == canonicalJSON(
                        try JSONParser.parse(
                            #"{"driving":{"state":"permissionMissing","missing":["always"]},"walking":{"state":"active","missing":[]}}"#
                        )))
        }
    }

    /// `/v1/status` counts users per service and state, and `/metrics` exports the same
    /// numbers as `remindd_users{service,state}` beside the unlabelled total.
    @Test func statusAndMetricsCountUsersPerServiceAndState() async throws {
        try await Self.withServices { _, client in
            try await client.report("a", #"{"location":"always","motion":"authorized"}"#)
            try await client.report("b", #"{"location":"always","accuracy":"reduced"}"#)
            try await client.report("c", #"{"location":"whileInUse","motion":"authorized"}"#)
            // A user who changes moves between the counts.
            try await client.report("d", #"{"location":"denied"}"#)
            try await client.report("d", #"{"location":"always","motion":"authorized"}"#)
            let status = try await client.get("/v1/status")
            #expect(
                try status.object()["services"].map(canonicalJSON)
                    == canonicalJSON(
                        try JSONParser.parse(
                            #"{"driving":{"active":2,"degraded":1,"permissionMissing":1},"walking":{"active":3,"degraded":0,"permissionMissing":1}}"#
                        )))
            let metrics = try await client.get("/metrics")
            let lines = metrics.text.split(separator: "\n").map(String.init)
            #expect(lines.contains("remindd_users 4.0"))
            #expect(lines.contains(#"remindd_users{service="driving",state="active"} 2.0"#))
            #expect(lines.contains(#"remindd_users{service="driving",state="permissionMissing"} 1.0"#))
            #expect(lines.contains(#"remindd_users{service="walking",state="degraded"} 0.0"#))
            // One family: the labelled series follow its TYPE line, before the next family.
            let type = try #require(lines.firstIndex(of: "# TYPE remindd_users gauge"))
            #expect(lines[type + 1] == "remindd_users 4.0")
            #expect(lines[(type + 2)...(type + 7)].allSatisfy { $0.hasPrefix("remindd_users{service=") })
        }
    }

    /// A bad motion value is a 400 naming `motion`, and changes nothing.
    @Test func badMotionIsRefusedNamingTheField() async throws {
        try await withAPI { _, client in
            let response = try await client.post("/v1/users/u-42/reports", #"{"location":"always","motion":"yes"}"#)
            try expectProblem(response, status: 400, field: "motion")
            #expect(try await client.get("/v1/users/u-42").status == .notFound)
        }
    }
}
