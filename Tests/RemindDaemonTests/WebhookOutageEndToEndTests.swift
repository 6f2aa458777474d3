import Foundation
import RemindClient
import RemindCore
import RemindTesting
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The real binary against a real HTTP receiver that fails: nothing is lost, the backoff shows
/// in `/metrics`, and the file sink beside the webhook never waits for it.
@Suite(.ownThread, .serialized)
struct WebhookOutageEndToEndTests {
    static func webhookSink(port: Int) -> String {
        #"{"type":"webhook","name":"hook","url":"http://127.0.0.1:\#(port)/hook","timeoutSeconds":2,"maxConcurrency":4,"retry":{"initialBackoffSeconds":0.1,"maxBackoffSeconds":0.4,"maxAttempts":1000}}"#
    }

    /// One sample of `/metrics`, by name and label text (`sink="hook"`); nil when absent.
    static func metric(_ daemon: DaemonProcess, _ name: String, _ label: String = "") throws -> Double? {
        let text = try daemon.client.send("GET", "/metrics").text
        for line in text.split(separator: "\n") where line.hasPrefix(name + "{") || line.hasPrefix(name + " ") {
            guard label.isEmpty || line.contains(label), let value = line.split(separator: " ").last else { continue }
            return Double(value)
        }
        return nil
    }

    /// Event ids the receiver answered 2xx for — the ids it was last asked about, since a
    /// request recorded while the fallback status was 503 was not delivered.
    static func ids(in received: [WebhookReceiver.Received]) -> Set<String> {
        Set(received.compactMap { $0.headers["webhook-id"] ?? $0.headers["idempotency-key"] })
    }

    /// A receiver answering 503: the file sink delivers every reminder at once, the webhook's
    /// failed attempts, backoff and outbox depth are in the metrics; when it recovers each
    /// event arrives with its id and the outbox empties.
    @Test func receiverReturning503ThenRecovering() async throws {
        let receiver = WebhookReceiver()
        receiver.fallbackStatus.withLock { $0 = 503 }
        try await receiver.serving {
            let daemon = try DaemonProcess(
                configuration: #""notification":{"notificationTriggerDelay":1}"#,
                extraSinks: Self.webhookSink(port: receiver.boundPort))
            try daemon.start()
            let users = (1...5).map { "out-\($0)" }
            for user in users { #expect(try daemon.post(user, #"{"location":"whileInUse"}"#).status == 200) }
            let fileEvents = try await daemon.waitForEvents(users.count)
            #expect(fileEvents.count == users.count)
            // Several rounds of failures per event.
            try await Self.eventually { receiver.received.withLock { $0.count } >= 3 * users.count }
            // The receiver counts a request before the daemon has read its answer: the counter
            // may trail it by the attempts in flight.
            try await Self.eventually {
                try Self.metric(daemon, "remindd_sink_failed_attempts_total", #"sink="hook""#) ?? 0 >= 15
            }
            #expect(try Self.metric(daemon, "remindd_sink_failed_attempts_total", #"sink="hook""#) ?? 0 >= 15)
            #expect(try Self.metric(daemon, "remindd_sink_last_backoff_seconds", #"sink="hook""#) ?? 0 > 0)
            #expect(try Self.metric(daemon, "remindd_sink_outbox_depth", #"sink="hook""#) == 5)
            // A line is in the file before the store has recorded it delivered (on PostgreSQL a
            // transaction of its own), so the file sink's depth may trail its file briefly.
            try await Self.eventually {
                try Self.metric(daemon, "remindd_sink_outbox_depth", #"sink="file""#) == 0
            }
            #expect(try Self.metric(daemon, "remindd_sink_outbox_depth", #"sink="file""#) == 0)
            #expect(try Self.metric(daemon, "remindd_sink_delivered_total", #"sink="hook""#) ?? 0 == 0)

            receiver.received.withLock { $0.removeAll() }
            receiver.fallbackStatus.withLock { $0 = 200 }
            try await Self.eventually {
                try Self.metric(daemon, "remindd_sink_outbox_depth", #"sink="hook""#) == 0
            }
            let expected = Set(try fileEvents.map { try Self.eventID($0) })
            #expect(Self.ids(in: receiver.received.withLock { $0 }) == expected)
            #expect(try Self.metric(daemon, "remindd_sink_delivered_total", #"sink="hook""#) == 5)
            #expect(try Self.metric(daemon, "remindd_sink_retrying_events", #"sink="hook""#) == 0)
            #expect(daemon.stop() == 0)
        }
    }

    /// kill -9 while the receiver is down with events in the outbox; the daemon restarts, the
    /// receiver comes up on the same port, and every event arrives with its original id.
    @Test func killedWhileReceiverDownDeliversAfterRestart() async throws {
        // A port that refuses connections: free now, served later by the receiver.
        let probe = WebhookReceiver()
        let port = try await probe.serving { probe.boundPort }
        let daemon = try DaemonProcess(
            configuration: #""notification":{"notificationTriggerDelay":1}"#, extraSinks: Self.webhookSink(port: port))
        try daemon.start()
        let users = (1...8).map { "down-\($0)" }
        for user in users { #expect(try daemon.post(user, #"{"location":"whileInUse"}"#).status == 200) }
        let fileEvents = try await daemon.waitForEvents(users.count)
        #expect(fileEvents.count == users.count)
        #expect(try Self.metric(daemon, "remindd_sink_outbox_depth", #"sink="hook""#) == 8)
        daemon.stop(signal: SIGKILL)

        let receiver = WebhookReceiver(port: port)
        try await receiver.serving {
            try daemon.start()
            let expected = Set(try fileEvents.map { try Self.eventID($0) })
            try await Self.eventually { Self.ids(in: receiver.received.withLock { $0 }).isSuperset(of: expected) }
            #expect(Self.ids(in: receiver.received.withLock { $0 }).isSuperset(of: expected))
            #expect(daemon.stop() == 0)
        }
    }

    /// Polls another process's progress every 50 ms until `condition` holds; throws (the test
    /// fails, naming the caller's line) if it still does not at the deadline.
    static func eventually(
        timeout: Duration = .seconds(90), line: Int = #line, _ condition: () throws -> Bool
    ) async throws {
        try await waitUntil("the condition of line \(line)", within: timeout, every: .milliseconds(50), condition)
    }

    static func eventID(_ line: String) throws -> String {
        guard case .object(let object) = try JSONParser.parse(line), case .string(let id)? = object["id"] else {
            throw POSIXError(.EINVAL)
        }
        return id
    }
}
