import Foundation
import RemindClient
import RemindCore
import RemindTesting
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `POST /v1/reports` against the real binary, on the suite's backend (files, parts, or
/// PostgreSQL with `REMINDD_TEST_STORAGE=postgres`): durable when answered, the access of a
/// single report, and a store that fails refusing the whole request.
@Suite(.ownThread, .serialized)
struct BulkReportEndToEndTests {
    static let ndjson = ["Content-Type": "application/x-ndjson"]

    /// 1,000 users with three lines each, interleaved, in batches of 3,000 lines: each user's
    /// last line wins. Returns each user's last location.
    static func lines(users: Int, prefix: String) -> (body: [UInt8], last: [String: String]) {
        let locations = ["whileInUse", "always", "denied", "allowOnce"]
        var text = ""
        var last: [String: String] = [:]
        for round in 0..<3 {
            for user in 0..<users {
                let location = locations[(user + round) % locations.count]
                let observedAt = RFC3339.format(Date().addingTimeInterval(Double(round - 10)))
                text += #"{"userID":"\#(prefix)-\#(user)","location":"\#(location)","observedAt":"\#(observedAt)"}"#
                text += "\n"
                last["\(prefix)-\(user)"] = location
            }
        }
        return (Array(text.utf8), last)
    }

    /// Answered means durable: `kill -9` right after the answer, and after a restart every
    /// user has their last line's state and all three lines counted.
    @Test func answeredBatchSurvivesKill9() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let (body, last) = Self.lines(users: 1_000, prefix: "k")
        let reply = try daemon.client.send("POST", "/v1/reports", body: body, headers: Self.ndjson)
        #expect(reply.status == 200, "\(reply.text.prefix(500))")
        #expect(daemon.stop(signal: SIGKILL) == SIGKILL)
        let answers = reply.text.split(separator: "\n")
        #expect(answers.count == 3_000)
        #expect(answers.allSatisfy { $0.contains(#""status":200"#) })
        try daemon.start()
        for (user, location) in last {
            let status = try daemon.client.send("GET", "/v1/users/\(user)")
            #expect(status.status == 200, "\(user)")
            #expect(status.text.contains(#""location":"\#(location)""#), "\(user): \(status.text)")
            #expect(status.text.contains(#""reportCount":3"#), "\(user): \(status.text)")
        }
        daemon.stop()
    }

    /// On the Unix socket a bulk request needs the rights of a single report: a peer that
    /// may only read gets 403 and nothing is stored; the daemon's own user is answered.
    @Test func socketPeerThatMayOnlyReadIsRefused() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        defer { daemon.stop() }
        chmod(daemon.socketPath, 0o666)
        chmod(daemon.directory, 0o755)
        let line = #"{"userID":"n-1","location":"always"}"# + "\n"
        let arguments = [
            "--unix-socket", daemon.socketPath, "-X", "POST", "-H", "Content-Type: application/x-ndjson",
            "--data-binary", line, "http://localhost/v1/reports",
        ]
        let refused = try Curl.run(arguments, asNobody: true)
        #expect(refused.status == 403)
        #expect(refused.headers["content-type"] == "application/problem+json")
        #expect(try daemon.client.send("GET", "/v1/users/n-1").status == 404)
        #expect(try Curl.run(arguments).status == 200)
        #expect(try daemon.client.send("GET", "/v1/users/n-1").status == 200)
    }

    /// On TCP a bulk request needs the report scope, as a single report does.
    @Test func tcpNeedsTheReportScope() throws {
        let (daemon, base, _, files) = try ScopedTokensEndToEndTests.daemon()
        defer { withExtendedLifetime(files) {} }
        defer { daemon.stop() }
        let line = #"{"userID":"t-1","location":"always"}"# + "\n"
        let header = "Content-Type: application/x-ndjson"
        func post(_ token: String?) throws -> Curl.Reply {
            var arguments = ["-X", "POST", "-H", header, "--data-binary", line]
            if let token { arguments += ["-H", "Authorization: Bearer \(token)"] }
            return try Curl.run(arguments + [base + "/v1/reports"])
        }
        #expect(try post(nil).status == 401)
        let reader = try post(ScopedTokensEndToEndTests.reader)
        #expect(reader.status == 403)
        #expect(reader.body.contains("needs the report scope"))
        #expect(try daemon.client.send("GET", "/v1/users/t-1").status == 404)
        let reporter = try post(ScopedTokensEndToEndTests.reporter)
        #expect(reporter.status == 200)
        #expect(reporter.headers["content-type"] == "application/x-ndjson")
        #expect(reporter.body.hasPrefix(#"{"line":1,"status":200,"userID":"t-1""#))
    }

    /// With the PostgreSQL server stopped the whole request is 503 with `Retry-After`, and
    /// none of its users exists once the server is back; then the same batch is stored.
    @Test(.enabled(if: PostgresServer.isInstalled, "needs Debian's postgresql"))
    func databaseDownRefusesTheWholeRequest() async throws {
        let server = try PostgresServer()
        let url = server.url(database: try server.createDatabase())
        let daemon = try DaemonProcess(configuration: PostgresEndToEndTests.storage(url))
        try daemon.start()
        defer { daemon.stop() }
        #expect(try daemon.postRetrying("before", #"{"location":"whileInUse"}"#).status == 200)
        let (body, _) = Self.lines(users: 50, prefix: "down")
        server.stop()
        let refused = try daemon.client.send("POST", "/v1/reports", body: body, headers: Self.ndjson)
        #expect(refused.status == 503)
        #expect(refused.headers["retry-after"] != nil)
        #expect(refused.headers["content-type"] == "application/problem+json")
        try server.start()
        var stored: HTTPReply?
        try await waitUntil("the batch taken again", within: .seconds(30), every: .milliseconds(200)) {
            stored = try daemon.client.send("POST", "/v1/reports", body: body, headers: Self.ndjson)
            return stored?.status == 200
        }
        #expect(stored?.text.split(separator: "\n").count == 150)
        // Stored once: the refused request left nothing behind.
        #expect(try daemon.get("/v1/users/down-0").contains(#""reportCount":3"#))
    }
}
