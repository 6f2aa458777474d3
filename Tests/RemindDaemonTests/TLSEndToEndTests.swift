import Foundation
import RemindClient
import RemindTesting
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// HTTPS and mutual TLS on the TCP listener, against the real binary with real peers: curl and
/// `openssl s_client`, with certificates the test makes with the `openssl` CLI.
@Suite(.ownThread, .serialized)
struct TLSEndToEndTests {
    static let token = "tls-token-5be1"

    /// A PKI in a temp directory, the token file beside it, and a daemon configured for it.
    final class Setup {
        let pki: TestCertificates
        let port: Int
        let daemon: DaemonProcess
        var url: String { "https://127.0.0.1:\(port)/v1/status" }

        init(clientCA: Bool = false, tls: ((TestCertificates) -> String)? = nil) throws {
            var template = Array("/tmp/remindd-pki-XXXXXX".utf8CString)
            guard let made = mkdtemp(&template) else { throw POSIXError(.EIO) }
            pki = try TestCertificates(directory: String(cString: made))
            port = try TCPPort.free()
            let tokenFile = pki.directory + "/token"
            try (TLSEndToEndTests.token + "\n").write(toFile: tokenFile, atomically: true, encoding: .utf8)
            let clientCAFile = clientCA ? #""\#(pki.caFile)""# : "null"
            let files =
                tls?(pki)
                ?? #"{"certFile":"\#(pki.serverCert)","keyFile":"\#(pki.serverKey)","clientCAFile":\#(clientCAFile)}"#
            daemon = try DaemonProcess(
                configuration: #""listen":{"tcp":"127.0.0.1:\#(port)","tokenFile":"\#(tokenFile)","tls":\#(files)}"#)
        }

        deinit { try? FileManager.default.removeItem(atPath: pki.directory) }

        /// curl with a 10 s deadline; the HTTP status, 0 when no HTTP answer came.
        func curl(_ arguments: [String], token: String? = TLSEndToEndTests.token) throws -> Int {
            var command = ["-s", "-o", "/dev/null", "-w", "%{http_code}", "-m", "10"] + arguments
            if let token { command += ["-H", "Authorization: Bearer \(token)"] }
            return Int(try SpawnedProcess.run("/usr/bin/curl", command).standardOutput) ?? -1
        }

        /// `openssl s_client` with a 10 s deadline and no input (it ends after the handshake).
        func handshake(_ arguments: [String]) throws -> SpawnedProcess.Result {
            try SpawnedProcess.run(
                "/usr/bin/timeout",
                ["10", "/usr/bin/openssl", "s_client", "-connect", "127.0.0.1:\(port)", "-CAfile", pki.caFile]
                    + arguments)
        }

        /// The SHA-256 fingerprint of the certificate the listener serves now.
        func servedFingerprint() throws -> String {
            let script =
                "timeout 10 openssl s_client -connect 127.0.0.1:\(port) </dev/null 2>/dev/null"
                + " | openssl x509 -noout -fingerprint -sha256"
            return try SpawnedProcess.run("/bin/sh", ["-c", script]).standardOutput.trimmingCharacters(
                in: .whitespacesAndNewlines)
        }
    }

    /// Under socket activation the passed TCP socket speaks TLS as well: systemd binds the
    /// port, the first HTTPS connection starts the daemon and is answered; a client without the
    /// CA is refused. (In-process clients only: Foundation's `Process` mistakes the launcher's
    /// `exec` for an exit and then blocks on it, which would hang any other child process.)
    @Test func socketActivatedTCPListenerSpeaksTLS() throws {
        let setup = try Setup()
        let unix = setup.daemon.directory + "/activated.sock"
        try setup.daemon.start(
            waitForReady: false,
            launcher: [
                "/usr/bin/systemd-socket-activate", "-E", "NOTIFY_SOCKET", "-l", "127.0.0.1:\(setup.port)", "-l", unix,
            ])
        // systemd-socket-activate binds first, in another process, in the order given: look for
        // its Unix socket, bound after the port, every 20 ms until a deadline (there is nothing
        // in-process to wait on; a probe of the port would be the connection that starts it).
        try waitUntil("the activated Unix socket", within: .seconds(90), pausingThread: .milliseconds(20)) {
            FileManager.default.fileExists(atPath: unix)
        }
        let base = "https://127.0.0.1:\(setup.port)"
        let trusted = DaemonHTTPClient(
            remote: RemoteEndpoint(url: base, caFile: setup.pki.caFile, token: TLSEndToEndTests.token))
        #expect(try trusted.send("GET", "/v1/status").status == 200)
        try setup.daemon.waitFor("READY=1")
        let noToken = DaemonHTTPClient(remote: RemoteEndpoint(url: base, caFile: setup.pki.caFile))
        #expect(try noToken.send("GET", "/v1/status").status == 401)
        // Without the CA the handshake fails: proof that TLS with the configured certificate
        // was spoken on the passed socket.
        let untrusted = DaemonHTTPClient(remote: RemoteEndpoint(url: base, token: TLSEndToEndTests.token))
        #expect(throws: ClientError.self) { try untrusted.send("GET", "/v1/status") }
        #expect(setup.daemon.stop() == 0)
    }

    /// The configured certificate is served over TLS 1.2 and 1.3 and verifies against the CA;
    /// TLS 1.0 and 1.1 are refused by the server (the client offers them at security level 0);
    /// plain HTTP to the port gets no HTTP answer; the bearer token is still required.
    @Test func httpsServesTheCertificateWithTLS12AndLater() throws {
        let setup = try Setup()
        try setup.daemon.start()
        defer { setup.daemon.stop() }
        #expect(try setup.curl(["--cacert", setup.pki.caFile, setup.url]) == 200)
        #expect(try setup.curl(["--cacert", setup.pki.caFile, setup.url], token: nil) == 401)
        #expect(try setup.curl(["--cacert", setup.pki.caFile, setup.url], token: "wrong") == 401)
        // Without the CA, curl refuses the certificate: proof that TLS with it was spoken.
        #expect(try setup.curl([setup.url]) == 0)
        #expect(try setup.curl(["http://127.0.0.1:\(setup.port)/v1/status"]) == 0)
        #expect(try setup.servedFingerprint() == setup.pki.fingerprint(setup.pki.serverCert))
        for version in ["-tls1_2", "-tls1_3"] {
            let accepted = try setup.handshake([version, "-verify_return_error", "-brief"])
            #expect(accepted.status == 0, "\(version): \(accepted.standardError)")
            #expect(accepted.standardError.contains("Verification: OK"), "\(version)")
        }
        for version in ["-tls1", "-tls1_1"] {
            let refused = try setup.handshake([version, "-cipher", "DEFAULT@SECLEVEL=0", "-brief"])
            #expect(refused.status != 0, "\(version) was accepted")
            // The server said no: the client did offer the version.
            #expect(refused.standardError.contains("alert protocol version"), "\(version): \(refused.standardError)")
        }
    }

    /// A renewed certificate is served to new connections after SIGHUP, by the same process; a
    /// key that does not match at reload is refused with 422 naming listen.tls and the renewed
    /// certificate stays in use.
    @Test func renewedCertificateIsServedAfterReload() throws {
        let setup = try Setup()
        try setup.daemon.start()
        defer { setup.daemon.stop() }
        let pid = try #require(setup.daemon.pid)
        let first = try setup.servedFingerprint()
        #expect(first == (try setup.pki.fingerprint(setup.pki.serverCert)))
        let renewed = try setup.pki.issue(
            "server", by: "ca", commonName: "127.0.0.1", extensions: "subjectAltName=IP:127.0.0.1")
        #expect(renewed != first)
        kill(pid, SIGHUP)
        try setup.daemon.waitFor("RELOADING=1")
        try setup.daemon.waitFor("READY=1")
        #expect(try setup.servedFingerprint() == renewed)
        #expect(setup.daemon.pid == pid)
        #expect(try setup.curl(["--cacert", setup.pki.caFile, setup.url]) == 200)

        // A key from another pair: the reload is refused and the renewed pair stays.
        try setup.pki.issue("other", by: "ca", commonName: "127.0.0.1", extensions: "subjectAltName=IP:127.0.0.1")
        try FileManager.default.removeItem(atPath: setup.pki.serverKey)
        try FileManager.default.copyItem(atPath: setup.pki.directory + "/other.key", toPath: setup.pki.serverKey)
        let refused = try setup.daemon.client.send("POST", "/v1/reload")
        #expect(refused.status == 422)
        #expect(refused.text.contains("listen.tls.keyFile"))
        #expect(try setup.servedFingerprint() == renewed)
        #expect(try setup.curl(["--cacert", setup.pki.caFile, setup.url]) == 200)
        // The effective configuration names the files, never what is in them.
        let config = try setup.daemon.client.send("GET", "/v1/config").text
        #expect(config.contains(setup.pki.serverKey))
        #expect(!config.contains("PRIVATE KEY"))
    }

    /// With clientCAFile a client certificate from that CA is required, the bearer token too;
    /// no certificate or one from a stranger CA gets no HTTP answer.
    @Test func mutualTLSRequiresAClientCertificateFromTheCA() throws {
        let setup = try Setup(clientCA: true)
        try setup.daemon.start()
        defer { setup.daemon.stop() }
        let ca = ["--cacert", setup.pki.caFile]
        let client = ca + ["--cert", setup.pki.clientCert, "--key", setup.pki.clientKey]
        let stranger = ca + ["--cert", setup.pki.strangerCert, "--key", setup.pki.strangerKey]
        #expect(try setup.curl(client + [setup.url]) == 200)
        #expect(try setup.curl(client + [setup.url], token: nil) == 401)
        #expect(try setup.curl(ca + [setup.url]) == 0)
        #expect(try setup.curl(stranger + [setup.url]) == 0)
    }

    /// Each unusable file stops the daemon at start with exit 78 and a line naming the
    /// listen.tls key: missing, unreadable (a directory), malformed, and a mismatched key.
    @Test func unusableFilesExit78NamingListenTLS() throws {
        let cases: [(String, (TestCertificates) -> String)] = [
            ("listen.tls.certFile", { #"{"certFile":"\#($0.directory)/absent.pem","keyFile":"\#($0.serverKey)"}"# }),
            ("listen.tls.certFile", { #"{"certFile":"\#($0.directory)","keyFile":"\#($0.serverKey)"}"# }),
            ("listen.tls.certFile", { #"{"certFile":"\#($0.directory)/token","keyFile":"\#($0.serverKey)"}"# }),
            ("listen.tls.keyFile", { #"{"certFile":"\#($0.serverCert)","keyFile":"\#($0.directory)/token"}"# }),
            ("listen.tls.keyFile", { #"{"certFile":"\#($0.serverCert)","keyFile":"\#($0.clientKey)"}"# }),
            (
                "listen.tls.clientCAFile",
                {
                    #"{"certFile":"\#($0.serverCert)","keyFile":"\#($0.serverKey)","clientCAFile":"\#($0.serverKey)"}"#
                }
            ),
        ]
        for (index, (field, files)) in cases.enumerated() {
            let setup = try Setup(tls: files)
            try setup.daemon.start(waitForReady: false)
            #expect(setup.daemon.waitForExit() == 78, "\(field)")
            #expect(setup.daemon.log.contains(field), "\(field): \(setup.daemon.log)")
            #expect(!setup.daemon.log.contains("PRIVATE KEY"))
        }
    }

    /// Without listen.tls the daemon warns at start that the token crosses the network in
    /// clear; with it, it does not. Read back from a real journald, where the daemon logs
    /// whenever one listens, by the daemon's PID.
    @Test func plainTCPWarnsAtStartAndTLSDoesNot() async throws {
        try await JournaldFixture.withJournald { journald in
            let warning = "the bearer token and users' state cross the network in clear"
            let tls = try Setup()
            let plain = try Setup() { pki in "null" }
            // Only entries from now on: a daemon of an earlier pass may have had the same PID.
            let started = Date()
            for setup in [plain, tls] { try setup.daemon.start() }
            defer { for setup in [plain, tls] { setup.daemon.stop() } }
            for setup in [plain, tls] {
                let pid = try #require(setup.daemon.pid)
                // The warning comes before the listener's own line, from the same process.
                _ = try journald.entry(matching: ["_PID": "\(pid)"], timeout: .seconds(60)) {
                    $0.received(since: started) && $0["MESSAGE"]?.contains("serving on tcp") == true
                }
                let since = "--since=@\(Int(started.timeIntervalSince1970))"
                let lines = try JournaldFixture.journalctl(["--output=cat", "--no-pager", since, "_PID=\(pid)"])
                #expect(lines.standardOutput.contains(warning) == (setup === plain), "\(lines.standardOutput)")
            }
        }
    }
}
