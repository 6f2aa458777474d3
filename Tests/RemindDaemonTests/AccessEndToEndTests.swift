import Foundation
import RemindTesting
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Who may change state, against the real binary: SO_PEERCRED on the Unix socket, a bearer
/// token on TCP.
@Suite(.ownThread, .serialized)
struct AccessEndToEndTests {
    /// Runs curl, as another user when `asNobody`; returns the HTTP status it printed.
    static func curl(_ arguments: [String], asNobody: Bool = false) throws -> Int {
        try Curl.run(arguments, asNobody: asNobody).status
    }

    /// A peer that is neither root, the daemon's user nor in the socket's group may read but
    /// gets 403 for every change; root may change.
    @Test func unixSocketPeerCredentialsDecideWhoMayChange() throws {
        guard getuid() == 0 else {
            Issue.record("this test runs a client as nobody, which needs root")
            return
        }
        let daemon = try DaemonProcess()
        try daemon.start()
        // nobody must reach the socket to be refused by remindd rather than by the file system.
        chmod(daemon.directory, 0o755)
        chmod(daemon.socketPath, 0o666)
        let socket = ["--unix-socket", daemon.socketPath]
        #expect(try Self.curl(socket + ["http://localhost/v1/status"], asNobody: true) == 200)
        let post = socket + ["-d", #"{"location":"denied"}"#, "http://localhost/v1/users/n1/reports"]
        #expect(try Self.curl(post, asNobody: true) == 403)
        #expect(try Self.curl(socket + ["-X", "POST", "http://localhost/v1/reload"], asNobody: true) == 403)
        #expect(try Self.curl(socket + ["-X", "DELETE", "http://localhost/v1/users/n1"], asNobody: true) == 403)
        #expect(try daemon.client.send("GET", "/v1/users/n1").status == 404)
        #expect(try Self.curl(post) == 200)
        daemon.stop()
    }

    /// On TCP every request needs the bearer token from listen.tokenFile: none or a wrong one
    /// is 401, the right one (file whitespace ignored) is served.
    @Test func tcpNeedsBearerToken() throws {
        let port = try TCPPort.free()
        let probe = try DaemonProcess()
        let tokenFile = probe.directory + "/token"
        try "  s3cret-token\n".write(toFile: tokenFile, atomically: true, encoding: .utf8)
        let daemon = try DaemonProcess(
            configuration: #""listen":{"tcp":"127.0.0.1:\#(port)","tokenFile":"\#(tokenFile)"}"#)
        try daemon.start()
        let url = "http://127.0.0.1:\(port)/v1/status"
        #expect(try Self.curl([url]) == 401)
        #expect(try Self.curl(["-H", "Authorization: Bearer wrong", url]) == 401)
        #expect(try Self.curl(["-H", "Authorization: Bearer s3cret-token", url]) == 200)
        // The secret never shows in the effective configuration.
        #expect(!(try daemon.client.send("GET", "/v1/config").text.contains("s3cret")))
        daemon.stop()
    }

    /// Neither the TCP token nor a webhook secret appears in the log, the status, the
    /// configuration or the metrics, even when requests carry wrong tokens.
    @Test func secretsNeverLeak() async throws {
        let port = try TCPPort.free()
        let probe = try DaemonProcess()
        let tokenFile = probe.directory + "/token"
        try "tok-9f2c41\n".write(toFile: tokenFile, atomically: true, encoding: .utf8)
        let secretFile = probe.directory + "/hook.secret"
        try "whsec_c2VjcmV0LWJ5dGVzLTEyMzQ1Ng==\n".write(toFile: secretFile, atomically: true, encoding: .utf8)
        let daemon = try DaemonProcess(
            configuration:
                #""listen":{"tcp":"127.0.0.1:\#(port)","tokenFile":"\#(tokenFile)"},"notification":{"notificationTriggerDelay":1}"#,
            extraSinks:
                #"{"type":"webhook","name":"hook","url":"http://127.0.0.1:9/hook","secretFile":"\#(secretFile)","retry":{"initialBackoffSeconds":0.1,"maxBackoffSeconds":0.1,"maxAttempts":2}}"#
        )
        try daemon.start()
        #expect(try Self.curl(["-H", "Authorization: Bearer tok-9f2c4", "http://127.0.0.1:\(port)/v1/status"]) == 401)
        try daemon.post("leak", #"{"location":"whileInUse"}"#)
        // The webhook fails (nothing listens on port 9) and is dead-lettered: its errors are logged.
        try await WebhookOutageEndToEndTests.eventually {
            try daemon.client.send("GET", "/v1/dead-letters").text.contains(#""sink":"hook""#)
        }
        var seen = ""
        for path in ["/v1/status", "/v1/config", "/metrics", "/v1/dead-letters"] {
            seen += try daemon.client.send("GET", path).text
        }
        daemon.stop()
        seen += daemon.log
        for secret in ["tok-9f2c41", "c2VjcmV0LWJ5dGVzLTEyMzQ1Ng", "secret-bytes-123456"] {
            #expect(!seen.contains(secret), "\(secret) leaked")
        }
    }
}
