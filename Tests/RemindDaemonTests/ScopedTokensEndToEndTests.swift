import Foundation
import RemindTesting
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Scoped tokens on the TCP listener, against the real binary: each scope on every route,
/// `whoami`, the tokens file re-read at reload, bad files refused naming the key and line, and
/// no token in an answer, a log line or a metric.
@Suite(.ownThread, .serialized)
struct ScopedTokensEndToEndTests {
    static let admin = "adm1n-0c2f9e71d4b8a653"
    static let reader = "r3ad-7b41e09a2cd6f835"
    static let reporter = "r3port-5e8a1f27c04b9d36"
    static let single = "single-admin-4d7c2e91"

    /// A daemon with a TCP listener, a tokens file of three scopes and a single-token file.
    /// The files live in `files`' directory, kept as long as the caller holds it.
    static func daemon(
        extra: String = ""
    ) throws -> (DaemonProcess, base: String, tokensFile: String, files: DaemonProcess) {
        let port = try TCPPort.free()
        let probe = try DaemonProcess()
        let tokensFile = probe.directory + "/tokens"
        try """
        # name scope token
        ops admin \(admin)
        viewer read \(reader)
        backend report \(reporter)   # the app backend
        """.write(toFile: tokensFile, atomically: true, encoding: .utf8)
        let tokenFile = probe.directory + "/token"
        try "\(single)\n".write(toFile: tokenFile, atomically: true, encoding: .utf8)
        let daemon = try DaemonProcess(
            configuration:
                #""listen":{"tcp":"127.0.0.1:\#(port)","tokenFile":"\#(tokenFile)","tokensFile":"\#(tokensFile)"}"#
                + extra)
        try daemon.start()
        return (daemon, "http://127.0.0.1:\(port)", tokensFile, probe)
    }

    /// Every route with every scope: reads for all, reports for report and admin, the rest for
    /// admin only (403 naming the scope needed); no token is 401 everywhere. A repeated report
    /// (the event loop's fast path) is refused to a reader like a first one.
    @Test func eachScopeOnEveryRoute() throws {
        let (daemon, base, _, files) = try Self.daemon()
        defer { withExtendedLifetime(files) {} }
        defer { daemon.stop() }
        let report = #"{"location":"whileInUse","observedAt":"2026-11-01T10:00:00Z"}"#
        #expect(
            try Curl.request("POST", base + "/v1/users/seed/reports", token: Self.admin, body: report).status == 200)
        let reads = [
            "/v1/status", "/v1/users/seed", "/v1/users/seed/history", "/v1/users/seed/explain", "/v1/reminders",
            "/v1/stats", "/v1/config", "/v1/dead-letters", "/metrics", "/v1/whoami",
        ]
        for path in reads {
            #expect(try Curl.request("GET", base + path).status == 401, "\(path)")
            for token in [Self.reader, Self.reporter, Self.admin, Self.single] {
                #expect(try Curl.request("GET", base + path, token: token).status == 200, "\(path)")
            }
        }
        // The reader is refused both the first report and a repeat of the seeded user's state.
        for user in ["fresh", "seed"] {
            let refused = try Curl.request("POST", base + "/v1/users/\(user)/reports", token: Self.reader, body: report)
            #expect(refused.status == 403)
            #expect(refused.body.contains("needs the report scope; viewer has read"))
            #expect(refused.headers["content-type"] == "application/problem+json")
        }
        #expect(
            try Curl.request("POST", base + "/v1/users/fresh/reports", token: Self.reporter, body: report).status == 200
        )
        #expect(
            try Curl.request("POST", base + "/v1/users/fresh/reports", token: Self.reporter, body: report).status == 200
        )
        #expect(try Curl.request("GET", base + "/v1/users/fresh", token: Self.reader).status == 200)
        let adminRoutes: [(String, String, String?)] = [
            ("DELETE", "/v1/users/fresh", nil), ("POST", "/v1/dead-letters/replay", "{}"), ("POST", "/v1/reload", nil),
        ]
        for (method, path, body) in adminRoutes {
            #expect(try Curl.request(method, base + path, body: body).status == 401, "\(path)")
            for token in [Self.reader, Self.reporter] {
                let refused = try Curl.request(method, base + path, token: token, body: body)
                #expect(refused.status == 403, "\(method) \(path)")
                #expect(refused.body.contains("needs the admin scope"), "\(refused.body)")
            }
        }
        #expect(try Curl.request("DELETE", base + "/v1/users/fresh", token: Self.admin).status == 204)
        #expect(
            try Curl.request("POST", base + "/v1/dead-letters/replay", token: Self.single, body: "{}").status == 200)
        #expect(try Curl.request("POST", base + "/v1/reload", token: Self.admin).status == 200)
        #expect(try Curl.request("GET", base + "/v1/users/fresh", token: Self.reader).status == 404)
    }

    /// `whoami` names the holder, its scope and the transport; on the Unix socket root is
    /// `uid:0` with `admin`, and a peer outside the daemon's user and group is `read`.
    @Test func whoamiNamesTheCaller() throws {
        let (daemon, base, _, files) = try Self.daemon()
        defer { withExtendedLifetime(files) {} }
        defer { daemon.stop() }
        let expected = [
            (Self.admin, "ops", "admin"), (Self.reader, "viewer", "read"), (Self.reporter, "backend", "report"),
            (Self.single, "default", "admin"),
        ]
        for (token, name, scope) in expected {
            let reply = try Curl.request("GET", base + "/v1/whoami", token: token)
            #expect(reply.body == #"{"name":"\#(name)","scope":"\#(scope)","transport":"tcp"}"#)
        }
        #expect(
            try daemon.client.send("GET", "/v1/whoami").text == #"{"name":"uid:0","scope":"admin","transport":"unix"}"#)
        chmod(daemon.directory, 0o755)
        chmod(daemon.socketPath, 0o666)
        let nobody = try Curl.run(["--unix-socket", daemon.socketPath, "http://localhost/v1/whoami"], asNobody: true)
        #expect(nobody.body == #"{"name":"uid:65534","scope":"read","transport":"unix"}"#)
    }

    /// A reload re-reads the tokens file: a removed token is refused at once, an added one
    /// served. A bad file is a 422 naming the key and line, and the old tokens stay.
    @Test func reloadRereadsTheTokensFile() async throws {
        let (daemon, base, tokensFile, files) = try Self.daemon()
        defer { withExtendedLifetime(files) {} }
        defer { daemon.stop() }
        let added = "added-9a8b7c6d5e4f3a2b"
        try "ops admin \(Self.admin)\nnewcomer read \(added)\n".write(
            toFile: tokensFile, atomically: true, encoding: .utf8)
        #expect(try Curl.request("POST", base + "/v1/reload", token: Self.admin).status == 200)
        #expect(try Curl.request("GET", base + "/v1/status", token: Self.reader).status == 401)
        #expect(try Curl.request("GET", base + "/v1/whoami", token: added).body.contains(#""name":"newcomer""#))
        try "ops admin \(Self.admin)\nbroken writer \(Self.reader)\n".write(
            toFile: tokensFile, atomically: true, encoding: .utf8)
        let refused = try Curl.request("POST", base + "/v1/reload", token: Self.admin)
        #expect(refused.status == 422)
        #expect(refused.body.contains(#""field":"listen.tokensFile""#))
        #expect(refused.body.contains("line 2: scope of broken must be read, report or admin"))
        #expect(!refused.body.contains(Self.reader))
        #expect(try Curl.request("GET", base + "/v1/status", token: added).status == 200)
        // SIGHUP re-reads it too.
        try "ops admin \(Self.admin)\n".write(toFile: tokensFile, atomically: true, encoding: .utf8)
        kill(daemon.pid ?? 0, SIGHUP)
        try await waitUntil("the SIGHUP reload to drop the token") {
            (try? Curl.request("GET", base + "/v1/status", token: added).status) == 401
        }
    }

    /// A tokens file that cannot be used stops the start with exit 78, naming the key, file
    /// and line, never the token.
    @Test func badTokensFileExits78() throws {
        let probe = try DaemonProcess()
        let tokensFile = probe.directory + "/tokens"
        try "ops admin \(Self.admin)\nviewer read tooshort\n".write(
            toFile: tokensFile, atomically: true, encoding: .utf8)
        let daemon = try DaemonProcess(
            configuration: #""listen":{"tcp":"127.0.0.1:\#(try TCPPort.free())","tokensFile":"\#(tokensFile)"}"#)
        try daemon.start(waitForReady: false)
        #expect(daemon.waitForExit() == 78)
        #expect(
            daemon.log.contains(
                "listen.tokensFile: \(tokensFile) line 2: token of viewer must be at least 16 characters"))
        #expect(!daemon.log.contains("tooshort"))
        #expect(!daemon.log.contains(Self.admin))
    }

    /// No token appears in any answer, the metrics or the log, whatever the requests carried.
    @Test func tokensNeverLeak() throws {
        let (daemon, base, _, files) = try Self.daemon()
        defer { withExtendedLifetime(files) {} }
        var seen = ""
        for path in ["/v1/status", "/v1/config", "/metrics", "/v1/whoami", "/v1/dead-letters"] {
            seen += try Curl.request("GET", base + path, token: Self.admin).body
            seen += try Curl.request("GET", base + path, token: Self.admin + "x").body
        }
        seen += try Curl.request("POST", base + "/v1/reload", token: Self.reader).body
        seen += try Curl.request("POST", base + "/v1/users/u/reports", token: Self.reader, body: "{}").body
        daemon.stop()
        seen += daemon.log
        for token in [Self.admin, Self.reader, Self.reporter, Self.single] {
            #expect(!seen.contains(token), "a token leaked")
            #expect(!seen.contains(String(token.dropFirst(4))), "part of a token leaked")
        }
    }

    /// Forgetting a user, replaying dead letters and reloading are logged to journald with the
    /// token holder as `REMINDD_ACTOR` and the route as `REMINDD_ROUTE`; SIGHUP as `signal`.
    @Test func stateChangesAreAudited() async throws {
        try await JournaldFixture.withJournald { journald in
            let started = Date()
            let (daemon, base, _, files) = try Self.daemon()
            defer { withExtendedLifetime(files) {} }
            defer { daemon.stop() }
            let pid = "\(daemon.pid ?? 0)"
            let user = "audit-\(UUID().uuidString.prefix(8))"
            #expect(
                try Curl.request(
                    "POST", base + "/v1/users/\(user)/reports", token: Self.reporter,
                    body: #"{"location":"whileInUse"}"#
                ).status == 200)
            #expect(try Curl.request("DELETE", base + "/v1/users/\(user)", token: Self.admin).status == 204)
            let forgotten = try journald.entry(
                matching: ["REMINDD_USER_ID": user, "REMINDD_ACTOR": "ops"], timeout: .seconds(30))
            #expect(forgotten["REMINDD_ROUTE"] == "DELETE /v1/users/{userID}")
            #expect(forgotten["MESSAGE"] == "user forgotten")
            #expect(
                try Curl.request("POST", base + "/v1/dead-letters/replay", token: Self.single, body: "{}").status == 200
            )
            let replay = try journald.entry(
                matching: ["REMINDD_ACTOR": "default", "REMINDD_ROUTE": "POST /v1/dead-letters/replay", "_PID": pid],
                timeout: .seconds(30), where: { $0.received(since: started) })
            #expect(replay["MESSAGE"]?.contains("replayed 0 dead letter") == true)
            #expect(try Curl.request("POST", base + "/v1/reload", token: Self.admin).status == 200)
            _ = try journald.entry(
                matching: ["REMINDD_ACTOR": "ops", "REMINDD_ROUTE": "POST /v1/reload", "_PID": pid],
                timeout: .seconds(30), where: { $0.received(since: started) })
            kill(daemon.pid ?? 0, SIGHUP)
            _ = try journald.entry(
                matching: ["REMINDD_ACTOR": "signal", "REMINDD_ROUTE": "SIGHUP", "_PID": pid],
                timeout: .seconds(30), where: { $0.received(since: started) })
        }
    }
}

extension ScopedTokensEndToEndTests {
    /// The console's files need no token on TCP (they hold no data); the API beside them does.
    @Test func consoleNeedsNoTokenButItsDataDoes() throws {
        let (daemon, base, _, files) = try Self.daemon()
        defer { withExtendedLifetime(files) {} }
        defer { daemon.stop() }
        let page = try Curl.request("GET", base + "/ui/")
        #expect(page.status == 200)
        #expect(page.headers["content-security-policy"] == "default-src 'self'; frame-ancestors 'none'")
        #expect(page.headers["referrer-policy"] == "no-referrer")
        #expect(try Curl.request("GET", base + "/ui/app.js").status == 200)
        #expect(try Curl.request("GET", base + "/v1/status").status == 401)
    }
}
