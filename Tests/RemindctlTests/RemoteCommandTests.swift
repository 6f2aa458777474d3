import Foundation
import RemindTesting
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// remindctl against a daemon's TCP listener with `--url https://…`: the daemon's certificate
/// verified with `--cacert`, a client certificate for mutual TLS, the token from a file; the
/// same through `REMINDCTL_*` variables.
@Suite(.ownThread, .serialized)
struct RemoteCommandTests {
    /// A PKI and token in a temp directory, and a daemon serving HTTPS on 127.0.0.1.
    final class Remote {
        let pki: TestCertificates
        let tokenFile: String
        let port: Int
        let daemon: DaemonProcess
        var url: String { "https://127.0.0.1:\(port)" }

        init(clientCA: Bool) throws {
            pki = try TestCertificates(directory: try BuildProducts.temporaryDirectory("remindctl-pki"))
            tokenFile = pki.directory + "/token"
            try "ctl-token-77a1\n".write(toFile: tokenFile, atomically: true, encoding: .utf8)
            port = try TCPPort.free()
            let clientCAFile = clientCA ? #""\#(pki.caFile)""# : "null"
            daemon = try DaemonProcess.started(
                configuration: #"{"listen":{"tcp":"127.0.0.1:\#(port)","tokenFile":"\#(tokenFile)","#
                    + #""tls":{"certFile":"\#(pki.serverCert)","keyFile":"\#(pki.serverKey)","#
                    + #""clientCAFile":\#(clientCAFile)}},"sinks":[{"type":"file","path":"\#(pki.directory)/e.jsonl"}]}"#
            )
            try daemon.report("u-remote", #"{"location":"whileInUse"}"#)
        }

        deinit { try? FileManager.default.removeItem(atPath: pki.directory) }
    }

    /// HTTPS with a token: `status` and `user` answer over the network; without the CA the
    /// daemon's certificate is refused, without the token the daemon refuses (401), and the
    /// same works from REMINDCTL_* variables.
    @Test func urlWithCACertAndTokenFileQueriesOverHTTPS() throws {
        let remote = try Remote(clientCA: false)
        let base = ["--url", remote.url, "--cacert", remote.pki.caFile, "--token-file", remote.tokenFile]
        let status = try Remindctl.run(["status"] + base)
        #expect(status.status == 0, "\(status.standardError)")
        #expect(status.standardOutput.contains("users              1"))
        let user = try Remindctl.run(["user", "u-remote", "--json"] + base)
        #expect(user.status == 0)
        #expect(user.standardOutput.contains(#""userID":"u-remote""#))
        let untrusted = try Remindctl.run(["status", "--url", remote.url, "--token-file", remote.tokenFile])
        // No session with an untrusted daemon: unreachable (3), saying which options to check.
        #expect(untrusted.status == 3)
        #expect(untrusted.standardOutput.isEmpty)
        #expect(untrusted.standardError.contains("TLS handshake") && untrusted.standardError.contains("--cacert"))
        let wrongToken = remote.pki.directory + "/wrong"
        try "nope\n".write(toFile: wrongToken, atomically: true, encoding: .utf8)
        let refused = try Remindctl.run([
            "status", "--url", remote.url, "--cacert", remote.pki.caFile, "--token-file", wrongToken,
        ])
        #expect(refused.status != 0)
        #expect(refused.standardError.contains("Bearer"))
        let missingToken = try Remindctl.run(["status", "--url", remote.url, "--cacert", remote.pki.caFile])
        #expect(missingToken.status == 2)
        #expect(missingToken.standardError.contains("--token-file"))
        // Nothing listening at the URL: exit 3, as for a socket nobody serves, with a hint about --url.
        let unreachable = try Remindctl.run([
            "status", "--url", "https://127.0.0.1:1", "--token-file", remote.tokenFile,
        ])
        #expect(unreachable.status == 3)
        #expect(unreachable.standardError.contains("--url"))
        let fromEnvironment = try Remindctl.run(
            ["status"],
            environment: [
                "REMINDCTL_URL": remote.url, "REMINDCTL_CACERT": remote.pki.caFile,
                "REMINDCTL_TOKEN_FILE": remote.tokenFile,
            ])
        #expect(fromEnvironment.status == 0, "\(fromEnvironment.standardError)")
        // The same status but for the first line's "running since … (N seconds ago)", which
        // moves when the two calls straddle a second.
        #expect(
            fromEnvironment.standardOutput.split(separator: "\n").dropFirst()
                == status.standardOutput.split(separator: "\n").dropFirst())
    }

    /// Under mutual TLS remindctl is served with a client certificate from the daemon's client
    /// CA and refused without one or with a stranger CA's.
    @Test func urlWithClientCertificateQueriesUnderMutualTLS() throws {
        let remote = try Remote(clientCA: true)
        let base = ["--url", remote.url, "--cacert", remote.pki.caFile, "--token-file", remote.tokenFile]
        let served = try Remindctl.run(
            ["status"] + base + ["--cert", remote.pki.clientCert, "--key", remote.pki.clientKey])
        #expect(served.status == 0, "\(served.standardError)")
        #expect(served.standardOutput.contains("users              1"))
        let withoutCertificate = try Remindctl.run(["status"] + base)
        #expect(withoutCertificate.status == 3)
        #expect(withoutCertificate.standardOutput.isEmpty)
        #expect(withoutCertificate.standardError.contains("--cert and --key"))
        let stranger = try Remindctl.run(
            ["status"] + base + ["--cert", remote.pki.strangerCert, "--key", remote.pki.strangerKey])
        #expect(stranger.status == 3)
        #expect(stranger.standardOutput.isEmpty)
    }
}
