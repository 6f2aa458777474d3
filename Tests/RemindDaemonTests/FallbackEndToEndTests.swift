import Crypto
import Foundation
import RemindClient
import RemindCore
import RemindTesting
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The real binary with an `apns` sink against the local APNs server and a sink of role
/// `fallback` (docs/fallback.md): the users push cannot reach get their reminders there, and
/// only they; a reminder takes one channel, survives `kill -9` between a dead token and the
/// fallback's delivery, and is retried and dead-lettered like any sink's. On every backend.
@Suite(.ownThread, .serialized)
struct FallbackEndToEndTests {
    static let token = String(repeating: "0123456789abcdef", count: 4)
    static let deadToken = String(repeating: "fedcba9876543210", count: 4)

    /// A daemon with the default file sink (role `always`), an `apns` sink on `server` and a
    /// second file sink `mail` of role `fallback` (or `fallbackSink` instead).
    static func configure(
        _ daemon: DaemonProcess, _ server: PushServer, key: P256.Signing.PrivateKey, certificates: TestCertificates,
        configuration: String = #""notification":{"notificationTriggerDelay":1}"#, fallbackSink: String? = nil
    ) throws {
        let keyFile = daemon.directory + "/AuthKey_ABC123DEFG.p8"
        try key.pemRepresentation.write(toFile: keyFile, atomically: true, encoding: .utf8)
        let apns =
            #"{"type":"apns","keyFile":"\#(keyFile)","keyID":"ABC123DEFG","teamID":"DEF123GHIJ","topic":"com.example.app","url":"\#(server.url)","caFile":"\#(certificates.caFile)","timeoutSeconds":60,"retry":{"initialBackoffSeconds":0.1,"maxBackoffSeconds":0.2,"maxAttempts":100}}"#
        let fallback =
            fallbackSink ?? #"{"type":"file","name":"mail","role":"fallback","path":"\#(fallbackPath(daemon))"}"#
        try daemon.writeConfiguration(configuration, extraSinks: apns + "," + fallback)
    }

    static func fallbackPath(_ daemon: DaemonProcess) -> String { daemon.directory + "/fallback.jsonl" }

    /// Runs `body` with a started daemon configured by `configure` against a local APNs server
    /// answering `respond` (200 by default); `body` stops the daemon, the server stops after it.
    static func running(
        configuration: String = #""notification":{"notificationTriggerDelay":1}"#, fallbackSink: String? = nil,
        respond: @escaping @Sendable (PushServer.Received) async -> PushServer.Reply = { _ in .init(200) },
        _ body: (DaemonProcess, PushServer) async throws -> Void
    ) async throws {
        let key = P256.Signing.PrivateKey()
        let daemon = try DaemonProcess()
        let certificates = try TestCertificates(directory: daemon.directory)
        let server = PushServer(certificates: certificates, apnsKey: key.publicKey)
        server.respond(respond)
        try await server.serving {
            try configure(
                daemon, server, key: key, certificates: certificates, configuration: configuration,
                fallbackSink: fallbackSink)
            try daemon.start()
            try await body(daemon, server)
        }
    }

    /// The reminders in a JSON-lines file, by user: each one's channel and reason.
    static func reminders(in lines: [String]) -> [(user: String, id: String, channel: String, because: String)] {
        lines.compactMap { line in
            guard case .object(let object)? = try? JSONParser.parse(line), object["type"] == .string("reminder"),
                case .string(let user)? = object["userID"], case .string(let id)? = object["id"],
                case .string(let channel)? = object["channel"]
            else { return nil }
            let because: String
            if case .string(let text)? = object["because"] { because = text } else { because = "-" }
            return (user, id, channel, because)
        }
    }

    static func fallbackLines(_ daemon: DaemonProcess) -> [String] {
        ((try? String(contentsOfFile: fallbackPath(daemon), encoding: .utf8)) ?? "").split(separator: "\n").map(
            String.init)
    }

    /// Four users, one per reason, and one push reaches: each reason's reminder goes to the
    /// fallback sink and only then, with its `because`, the user's locale and platform; the
    /// sinks of role `always` get what they always got; push gets only its own user's.
    @Test func eachReasonGoesToTheFallbackAndOnlyThen() async throws {
        try await Self.running(respond: { request in
            request.path.hasSuffix(Self.deadToken) ? .apns(410, "Unregistered") : .init(200)
        }) { daemon, server in
            func push(_ token: String) -> String { #","push":{"service":"apns","token":"\#(token)"}"# }
            let common = #""location":"whileInUse","platform":"iOS 18.1","locale":"de-DE""#
            #expect(
                try daemon.post("pushed", "{\(common),\"notifications\":\"authorized\"\(push(Self.token))}").status
                    == 200)
            #expect(try daemon.post("none", "{\(common),\"notifications\":\"authorized\"}").status == 200)
            #expect(try daemon.post("off", "{\(common),\"notifications\":\"denied\"\(push(Self.token))}").status == 200)
            #expect(
                try daemon.post("dead", "{\(common),\"notifications\":\"authorized\"\(push(Self.deadToken))}").status
                    == 200)
            try await WebhookOutageEndToEndTests.eventually {
                Self.reminders(in: Self.fallbackLines(daemon)).count >= 3
            }
            let fallback = Self.reminders(in: Self.fallbackLines(daemon))
            #expect(
                Dictionary(uniqueKeysWithValues: fallback.map { ($0.user, $0.because) })
                    == ["none": "noPushAddress", "off": "notificationsOff", "dead": "unreachable"])
            #expect(fallback.allSatisfy { $0.channel == "fallback" })
            #expect(Self.fallbackLines(daemon).allSatisfy { $0.contains(#""locale":"de-DE","platform":"ios""#) })
            // The sinks of role always: push's and the ones push cannot serve but not the one
            // whose notifications are off (suppressed for them, as before).
            let always = Self.reminders(in: daemon.events)
            #expect(Set(always.map(\.user)) == ["pushed", "none", "dead"])
            #expect(always.first { $0.user == "dead" }?.channel == "push")
            // APNs saw the two users it serves; the dead token once.
            let paths = server.requests(to: "/3/device/").map(\.path)
            #expect(paths.filter { $0.hasSuffix(Self.deadToken) }.count == 1)
            #expect(Set(paths) == ["/3/device/\(Self.token)", "/3/device/\(Self.deadToken)"])
            #expect(try PushEndToEndTests.metric(daemon, "remindd_push_total", #"result="rerouted""#) == 1)
            // A withdraw reaches every sink a reminder reached, the fallback included.
            #expect(try daemon.post("off", #"{"location":"always","notifications":"denied"}"#).status == 200)
            try await WebhookOutageEndToEndTests.eventually {
                Self.fallbackLines(daemon).contains {
                    $0.contains(#""type":"withdraw""#) && $0.contains(#""userID":"off""#)
                }
            }
            #expect(!daemon.events.contains { $0.contains(#""type":"withdraw""#) && $0.contains(#""userID":"off""#) })
            #expect(!daemon.log.contains(Self.token) && !daemon.log.contains(Self.deadToken))
            #expect(daemon.stop() == 0)
        }
    }

    /// Notifications off, then on: the series goes to the fallback sink, then back to push.
    @Test func notificationsBackOnGoBackToPush() async throws {
        try await Self.running(
            configuration: #""notification":{"notificationTriggerDelay":1,"showRecurringNotification":true}"#
        ) { daemon, server in
            let push = #""push":{"service":"apns","token":"\#(Self.token)"}"#
            #expect(
                try daemon.post("u-1", #"{"location":"whileInUse","notifications":"denied",\#(push)}"#).status == 200)
            try await WebhookOutageEndToEndTests.eventually { !Self.reminders(in: Self.fallbackLines(daemon)).isEmpty }
            #expect(server.requests(to: "/3/device/").isEmpty)
            // explain says where the next one goes, and why.
            let explain = try daemon.client.send("GET", "/v1/users/u-1/explain").text
            #expect(
                explain.contains(#""code":"channel""#) && explain.contains("because notificationsOff"), "\(explain)")
            #expect(try daemon.post("u-1", #"{"location":"whileInUse","notifications":"authorized"}"#).status == 200)
            try await WebhookOutageEndToEndTests.eventually { !server.requests(to: "/3/device/").isEmpty }
            let fellBack = Set(Self.reminders(in: Self.fallbackLines(daemon)).map(\.id))
            let pushed = Set(server.requests(to: "/3/device/").compactMap { $0.headers["apns-id"] })
            #expect(!fellBack.isEmpty && !pushed.isEmpty)
            // Each reminder one channel: no id went both ways.
            let pushedIDs = Set(Self.reminders(in: daemon.events).filter { $0.channel == "push" }.map(\.id))
            #expect(fellBack.isDisjoint(with: pushedIDs))
            #expect(daemon.stop() == 0)
        }
    }

    /// A fallback sink that fails: retried with its backoff, then a dead letter naming it, and
    /// replayable like any sink's.
    @Test func aFailingFallbackIsRetriedAndDeadLettered() async throws {
        let receiver = WebhookReceiver()
        receiver.fallbackStatus.withLock { $0 = 503 }
        try await receiver.serving {
            let hook =
                #"{"type":"webhook","name":"mail","role":"fallback","url":"\#(receiver.url)","timeoutSeconds":5,"retry":{"initialBackoffSeconds":0.05,"maxBackoffSeconds":0.1,"maxAttempts":3}}"#
            try await Self.running(fallbackSink: hook) { daemon, server in
                #expect(
                    try daemon.post("u-1", #"{"location":"whileInUse","notifications":"authorized"}"#).status == 200)
                try await WebhookOutageEndToEndTests.eventually {
                    try daemon.client.send("GET", "/v1/dead-letters").text.contains(#""sink":"mail""#)
                }
                let attempts = receiver.received.withLock { $0 }
                #expect(attempts.count == 3)
                #expect(
                    Set(
                        attempts.compactMap {
                            try? WebhookOutageEndToEndTests.eventID(String(decoding: $0.body, as: UTF8.self))
                        }
                    ).count == 1)
                receiver.fallbackStatus.withLock { $0 = 200 }
                #expect(try daemon.client.send("POST", "/v1/dead-letters/replay", body: Array("{}".utf8)).status == 200)
                try await WebhookOutageEndToEndTests.eventually { receiver.received.withLock { $0.count } == 4 }
                #expect(server.requests(to: "/3/device/").isEmpty)
                #expect(daemon.stop() == 0)
            }
        }
    }

    /// `kill -9` while the fallback sink holds the reminder a dead token sent its way: after a
    /// restart it is delivered there under the same id, APNs is not tried again, and no other
    /// id appears.
    @Test func killedBetweenADeadTokenAndTheFallbackLosesNothing() async throws {
        let receiver = WebhookReceiver()
        // Held long enough for the kill; the handler's wait ends by itself soon after.
        receiver.responseDelay.withLock { $0 = .seconds(20) }
        try await receiver.serving {
            let hook =
                #"{"type":"webhook","name":"mail","role":"fallback","url":"\#(receiver.url)","timeoutSeconds":60,"retry":{"initialBackoffSeconds":0.05,"maxBackoffSeconds":0.1,"maxAttempts":100}}"#
            try await Self.running(fallbackSink: hook, respond: { _ in .apns(410, "Unregistered") }) { daemon, server in
                let push = #""push":{"service":"apns","token":"\#(Self.token)"}"#
                #expect(
                    try daemon.post("u-1", #"{"location":"whileInUse","notifications":"authorized",\#(push)}"#).status
                        == 200)
                try await WebhookOutageEndToEndTests.eventually { !receiver.received.withLock { $0 }.isEmpty }
                #expect(daemon.stop(signal: SIGKILL) == SIGKILL)
                receiver.responseDelay.withLock { $0 = .zero }
                try daemon.start()
                try await WebhookOutageEndToEndTests.eventually {
                    receiver.received.withLock { $0 }.contains { $0.acceptedPromptly }
                }
                let ids = Set(
                    receiver.received.withLock { $0 }.compactMap {
                        try? WebhookOutageEndToEndTests.eventID(String(decoding: $0.body, as: UTF8.self))
                    })
                #expect(ids.count == 1)
                #expect(
                    receiver.received.withLock { $0 }.allSatisfy {
                        String(decoding: $0.body, as: UTF8.self).contains(#""because":"unreachable""#)
                    })
                // The push sink's copy was done with before the kill or is found rerouted after it.
                try await WebhookOutageEndToEndTests.eventually {
                    try PushEndToEndTests.metric(daemon, "remindd_sink_outbox_depth", #"sink="apns""#) == 0
                }
                #expect(server.requests(to: "/3/device/").count == 1)
                #expect(try daemon.client.send("GET", "/v1/dead-letters").text == #"{"deadLetters":[]}"#)
                #expect(daemon.stop() == 0)
            }
        }
    }

    /// A reload applies `fallback.silentAfterSeconds`; a bad role or silence is refused naming
    /// its key path, and the running configuration stays.
    @Test func reloadAppliesTheSilenceAndRefusesBadValues() throws {
        let daemon = try DaemonProcess()
        let mail = #"{"type":"file","name":"mail","role":"fallback","path":"\#(Self.fallbackPath(daemon))"}"#
        try daemon.writeConfiguration("", extraSinks: mail)
        try daemon.start()
        #expect(
            try daemon.client.send("GET", "/v1/config").text.contains(#""fallback":{"silentAfterSeconds":2592000}"#))
        try daemon.writeConfiguration(#""fallback":{"silentAfterSeconds":null}"#, extraSinks: mail)
        #expect(try daemon.client.send("POST", "/v1/reload").status == 200)
        #expect(try daemon.client.send("GET", "/v1/config").text.contains(#""fallback":{"silentAfterSeconds":null}"#))
        for (configuration, sink, field) in [
            (#""fallback":{"silentAfterSeconds":0}"#, mail, "fallback.silentAfterSeconds"),
            ("", mail.replacingOccurrences(of: #""role":"fallback""#, with: #""role":"sometimes""#), "sinks[1].role"),
        ] {
            try daemon.writeConfiguration(configuration, extraSinks: sink)
            let refused = try daemon.client.send("POST", "/v1/reload")
            #expect(refused.status == 422 && refused.text.contains(field), "\(refused.text)")
            #expect(
                try daemon.client.send("GET", "/v1/config").text.contains(#""fallback":{"silentAfterSeconds":null}"#))
        }
        #expect(daemon.stop() == 0)
    }

    /// An app silent for `fallback.silentAfterSeconds` at the fire: the fallback, `because:
    /// silent`, though push could reach it.
    @Test func aSilentAppFallsBack() async throws {
        try await Self.running(
            configuration: #""notification":{"notificationTriggerDelay":2},"fallback":{"silentAfterSeconds":1}"#
        ) { daemon, server in
            let push = #""push":{"service":"apns","token":"\#(Self.token)"}"#
            #expect(
                try daemon.post("u-1", #"{"location":"whileInUse","notifications":"authorized",\#(push)}"#).status
                    == 200)
            try await WebhookOutageEndToEndTests.eventually { !Self.reminders(in: Self.fallbackLines(daemon)).isEmpty }
            #expect(Self.reminders(in: Self.fallbackLines(daemon)).map(\.because) == ["silent"])
            #expect(server.requests(to: "/3/device/").isEmpty)
            #expect(daemon.stop() == 0)
        }
    }
}
