import Crypto
import Foundation
import RemindClient
import RemindCore
import RemindTesting
import Synchronization
import Testing
import _CryptoExtras

#if canImport(Glibc)
    import Glibc
#endif

/// The real binary with an `apns` sink against a local HTTP/2 TLS APNs server (docs/push.md):
/// crash recovery, a dead token seen in the user status, `remindctl user` and `/metrics`, and
/// start-up refusals of bad key files.
@Suite(.ownThread, .serialized)
struct PushEndToEndTests {
    static let token = String(repeating: "0123456789abcdef", count: 4)

    /// Writes a `.p8` key into the daemon's directory and an apns sink pointing at `server`.
    static func configure(
        _ daemon: DaemonProcess, _ server: PushServer, key: P256.Signing.PrivateKey, certificates: TestCertificates
    ) throws {
        let keyFile = daemon.directory + "/AuthKey_ABC123DEFG.p8"
        try key.pemRepresentation.write(toFile: keyFile, atomically: true, encoding: .utf8)
        let sink =
            #"{"type":"apns","keyFile":"\#(keyFile)","keyID":"ABC123DEFG","teamID":"DEF123GHIJ","topic":"com.example.app","url":"\#(server.url)","caFile":"\#(certificates.caFile)","timeoutSeconds":60,"retry":{"initialBackoffSeconds":0.1,"maxBackoffSeconds":0.2,"maxAttempts":100}}"#
        try daemon.writeConfiguration(#""notification":{"notificationTriggerDelay":1}"#, extraSinks: sink)
    }

    static func metric(_ daemon: DaemonProcess, _ name: String, _ label: String) throws -> Double? {
        try WebhookOutageEndToEndTests.metric(daemon, name, label)
    }

    /// `kill -9` while APNs holds the request: after a restart the reminder goes again, with
    /// the same apns-id, and is delivered once the server answers.
    @Test func killedMidDeliveryIsDeliveredAfterRestartWithTheSameAPNsID() async throws {
        let key = P256.Signing.PrivateKey()
        let daemon = try DaemonProcess()
        let certificates = try TestCertificates(directory: daemon.directory)
        let server = PushServer(certificates: certificates, apnsKey: key.publicKey)
        let held = Gate()
        let answered = Mutex(0)
        server.respond { _ in
            if answered.withLock({
                $0 += 1; return $0
            }) == 1 {
                await held.wait()
            }
            return .init(200)
        }
        try await server.serving {
            try Self.configure(daemon, server, key: key, certificates: certificates)
            try daemon.start()
            let body = #"{"location":"whileInUse","push":{"service":"apns","token":"\#(Self.token)"}}"#
            #expect(try daemon.post("u-1", body).status == 200)
            try await waitUntil("APNs holds the first push", within: .seconds(60)) {
                server.requests(to: "/3/device/").count == 1
            }
            #expect(daemon.stop(signal: SIGKILL) == SIGKILL)
            held.open()
            try daemon.start()
            try await waitUntil("the push again after restart", within: .seconds(60)) {
                server.requests(to: "/3/device/").count >= 2
            }
            try await WebhookOutageEndToEndTests.eventually {
                try Self.metric(daemon, "remindd_push_total", #"result="delivered""#) == 1
            }
            let requests = server.requests(to: "/3/device/")
            #expect(requests[0].headers["apns-id"] == requests[1].headers["apns-id"])
            #expect(requests.allSatisfy { $0.path == "/3/device/\(Self.token)" })
            // The count goes up when APNs answers; the event leaves the outbox when the store
            // has recorded that (a transaction of its own on PostgreSQL).
            try await WebhookOutageEndToEndTests.eventually {
                try Self.metric(daemon, "remindd_sink_outbox_depth", #"sink="apns""#) == 0
            }
            #expect(try Self.metric(daemon, "remindd_sink_outbox_depth", #"sink="apns""#) == 0)
            #expect(daemon.stop() == 0)
        }
    }

    /// `410 Unregistered`: the user status says unreachable with the reason (and only the
    /// token's last 8 characters), the event is a dead letter, `remindctl user` shows it, the
    /// metric counts it, a restart keeps it, and the token is in no answer and no log line.
    @Test func deadTokenIsShownEverywhereButTheTokenNever() async throws {
        let key = P256.Signing.PrivateKey()
        let daemon = try DaemonProcess()
        let certificates = try TestCertificates(directory: daemon.directory)
        let server = PushServer(certificates: certificates, apnsKey: key.publicKey)
        server.respond { _ in .apns(410, "Unregistered") }
        try await server.serving {
            try Self.configure(daemon, server, key: key, certificates: certificates)
            try daemon.start()
            let body = #"{"location":"whileInUse","push":{"service":"apns","token":"\#(Self.token)"}}"#
            #expect(try daemon.post("u-1", body).status == 200)
            try await WebhookOutageEndToEndTests.eventually {
                try Self.metric(daemon, "remindd_push_total", #"result="unreachable""#) == 1
            }
            let status = try daemon.client.send("GET", "/v1/users/u-1")
            guard case .object(let object) = try JSONParser.parse(Array(status.text.utf8)),
                case .object(let push)? = object["push"]
            else {
                Issue.record("no push in \(status.text)")
                return
            }
            #expect(push["reachable"] == .bool(false))
            #expect(push["unreachableReason"] == .string("Unregistered"))
            #expect(push["tokenSuffix"] == .string(String(Self.token.suffix(8))))
            // The metric counts the answer; the dead letter is written after it (on PostgreSQL,
            // a transaction of its own).
            try await WebhookOutageEndToEndTests.eventually {
                try daemon.client.send("GET", "/v1/dead-letters").text.contains(#""lastError":"Unregistered""#)
            }
            let letters = try daemon.client.send("GET", "/v1/dead-letters").text
            let remindctl = try Self.remindctl(["user", "u-1"], socket: daemon.socketPath)
            #expect(remindctl.contains("unreachable: Unregistered"))
            #expect(remindctl.contains("…" + String(Self.token.suffix(8))))
            #expect(daemon.stop() == 0)
            try daemon.start()
            #expect(try daemon.client.send("GET", "/v1/users/u-1").text.contains(#""reachable":false"#))
            var answers = [status.text, letters, remindctl, daemon.log]
            answers.append(try daemon.client.send("GET", "/metrics").text)
            answers.append(try daemon.client.send("GET", "/v1/users/u-1/explain").text)
            for answer in answers { #expect(!answer.contains(Self.token)) }
            #expect(daemon.stop() == 0)
        }
    }

    /// A key file that is missing or not a P-256 key, or a service-account file without
    /// `private_key`, stops the start with exit 78 naming the key path.
    @Test(arguments: ["missing", "rsa", "garbage", "fcm-no-key"])
    func badKeyFilesAreAConfigurationError(case kind: String) throws {
        let daemon = try DaemonProcess()
        let file = daemon.directory + "/key"
        let sink: String
        switch kind {
        case "missing":
            sink = #"{"type":"apns","keyFile":"\#(file)","keyID":"K","teamID":"T","topic":"com.example.app"}"#
        case "rsa", "garbage":
            let text = kind == "rsa" ? try _RSAKeyText.make() : "not a key"
            try text.write(toFile: file, atomically: true, encoding: .utf8)
            sink = #"{"type":"apns","keyFile":"\#(file)","keyID":"K","teamID":"T","topic":"com.example.app"}"#
        default:
            try #"{"type":"service_account","project_id":"p","client_email":"a@b","token_uri":"https://x/token"}"#
                .write(
                    toFile: file, atomically: true, encoding: .utf8)
            sink = #"{"type":"fcm","serviceAccountFile":"\#(file)"}"#
        }
        try daemon.writeConfiguration("", extraSinks: sink)
        try daemon.start(waitForReady: false)
        #expect(daemon.waitForExit() == 78)
        let key = kind == "fcm-no-key" ? "sinks[1].serviceAccountFile" : "sinks[1].keyFile"
        #expect(daemon.log.contains(key), "\(daemon.log)")
        if kind == "fcm-no-key" { #expect(daemon.log.contains("private_key")) }
    }

    static func remindctl(_ arguments: [String], socket: String) throws -> String {
        let binary = URL(fileURLWithPath: DaemonProcess.binaryPath).deletingLastPathComponent()
            .appendingPathComponent("remindctl").path
        return try SpawnedProcess.run(
            binary, ["--socket", socket] + arguments, environment: ProcessInfo.processInfo.environment
        ).standardOutput
    }
}

enum _RSAKeyText {
    static func make() throws -> String { try _RSA.Signing.PrivateKey(keySize: .bits2048).pkcs8PEMRepresentation }
}
