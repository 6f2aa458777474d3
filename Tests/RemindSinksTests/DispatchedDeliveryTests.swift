import Crypto
import Foundation
import Logging
import RemindCore
import RemindSinks
import RemindTesting
import Synchronization
import Testing

/// Real sinks behind the dispatcher, with real receivers and the backoff on a manual clock:
/// the retry paths a receiver's outage takes, end to end.
struct DispatchedDeliveryTests {
    static let retry = RetryPolicy(initialBackoffSeconds: 5, maxBackoffSeconds: 5, maxAttempts: 5)

    /// Runs a dispatcher over one event until the outbox completes it, advancing the manual
    /// clock past each backoff; returns the dead letters it produced.
    static func dispatch(
        _ sink: any EventSink, _ event: OutboxEvent, retry: RetryPolicy = retry, backoffs: Int,
        beforeRetry: @Sendable (Int) -> Void = { _ in }
    ) async throws -> [(String, Int, String)] {
        let clock = ManualClock()
        let outbox = MemoryOutbox([event])
        let dead = Mutex<[(String, Int, String)]>([])
        let dispatcher = SinkDispatcher(
            sink: sink, retry: retry, source: outbox, clock: clock, logger: Logger(label: "test"),
            deadLetter: { event, attempts, error in
                // As a store does: stored, and out of the queue in the same step.
                dead.withLock { $0.append((event.id, attempts, error)) }
                await outbox.complete(event.id, sink: sink.name)
            })
        let task = Task { await dispatcher.run() }
        for round in 0..<backoffs {
            await clock.waitForSleepers(1)
            beforeRetry(round)
            clock.advance(by: .seconds(5))
        }
        try await outbox.waitUntilCompleted(1)
        task.cancel()
        return dead.withLock { $0 }
    }

    /// A receiver checking signatures answers 500 twice, then 200: three signed requests with
    /// one id (each signature valid for its timestamp), delivered once, no dead letter.
    @Test func webhook500TwiceThenDeliveredOnceWithOneID() async throws {
        let receiver = WebhookReceiver(answers: [(500, [:]), (500, [:])])
        let event = FileSinkTests.event(1)
        let dead = try await receiver.serving {
            let sink = try WebhookSink(url: receiver.url, secret: WebhookSinkTests.secret)
            return try await Self.dispatch(sink, event, backoffs: 2)
        }
        #expect(dead.isEmpty)
        let requests = receiver.received.withLock { $0 }
        #expect(requests.map(\.status) == [500, 500, 200])
        #expect(Set(requests.compactMap { $0.headers["webhook-id"] }) == [event.id])
        for request in requests {
            let timestamp = try #require(request.headers["webhook-timestamp"])
            let signed = Array("\(event.id).\(timestamp).".utf8) + request.body
            let mac = HMAC<SHA256>.authenticationCode(
                for: signed, using: SymmetricKey(data: WebhookSinkTests.secretBytes))
            #expect(request.headers["webhook-signature"] == "v1," + Data(mac).base64EncodedString())
        }
    }

    /// 400 is permanent: one request, then the event is a dead letter naming the status.
    @Test func webhook400IsDeadLetteredWithoutRetry() async throws {
        let receiver = WebhookReceiver(answers: [(400, [:])])
        let event = FileSinkTests.event(2)
        let dead = try await receiver.serving {
            try await Self.dispatch(try WebhookSink(url: receiver.url), event, backoffs: 0)
        }
        #expect(receiver.received.withLock { $0.count } == 1)
        #expect(dead.count == 1)
        #expect(dead.first?.0 == event.id && dead.first?.1 == 1 && dead.first?.2.contains("HTTP 400") == true)
    }

    /// A receiver that hangs past the sink's timeout is a failed attempt; once it answers in
    /// time, the retry delivers. (The timeout leaves the prompt answer 5 s of real time: with
    /// 0.3 s, and later 2 s, a loaded machine timed the retry out too, and the test waited for
    /// a third attempt that its manual clock never allowed.)
    @Test func hangingReceiverTimesOutThenRetryDelivers() async throws {
        let receiver = WebhookReceiver()
        receiver.responseDelay.withLock { $0 = .seconds(10) }
        let event = FileSinkTests.event(3)
        let dead = try await receiver.serving {
            let sink = try WebhookSink(url: receiver.url, timeoutSeconds: 5)
            return try await Self.dispatch(sink, event, backoffs: 1) { _ in
                receiver.responseDelay.withLock { $0 = .zero }
            }
        }
        #expect(dead.isEmpty)
        #expect(receiver.received.withLock { $0.map(\.acceptedPromptly) } == [false, true])
    }

    /// A delivery in flight when the dispatcher stops (a SIGTERM) is not an attempt: with one
    /// attempt allowed, the event is neither dead-lettered nor completed, but given back to
    /// the outbox for the next start. (It was dead-lettered with "CancellationError()".)
    @Test func aDeliveryCutShortByShutdownIsGivenBackNotDeadLettered() async throws {
        let receiver = WebhookReceiver()
        receiver.responseDelay.withLock { $0 = .seconds(10) }
        let event = FileSinkTests.event(5)
        let outbox = MemoryOutbox([event])
        let dead = Mutex<[String]>([])
        try await receiver.serving {
            let dispatcher = SinkDispatcher(
                sink: try WebhookSink(url: receiver.url, timeoutSeconds: 60),
                retry: RetryPolicy(initialBackoffSeconds: 1, maxBackoffSeconds: 1, maxAttempts: 1), source: outbox,
                clock: ManualClock(), logger: Logger(label: "test"),
                deadLetter: { event, _, _ in
                    dead.withLock { $0.append(event.id) }
                    await outbox.complete(event.id, sink: "webhook")
                })
            let task = Task { await dispatcher.run() }
            try await waitUntil("the request received", within: .seconds(30), every: .milliseconds(10)) {
                receiver.received.withLock { $0.count } == 1
            }
            task.cancel()
            await task.value
        }
        #expect(dead.withLock { $0 }.isEmpty)
        #expect(outbox.completed.isEmpty)
        #expect(await outbox.claimEvent(for: "webhook")?.id == event.id)
    }

    /// A command that fails the first time and succeeds the second is retried after the
    /// backoff and delivered; its first failure carried its output.
    @Test func execFailsThenSucceeds() async throws {
        let marker = ExecSinkTests.temporary("marker")
        defer { try? FileManager.default.removeItem(atPath: marker) }
        let script = #"if [ -e "$0" ]; then cat > /dev/null; exit 0; fi; touch "$0"; echo not yet >&2; exit 3"#
        let sink = ExecSink(command: ["/bin/sh", "-c", script, marker], timeoutSeconds: 5)
        let dead = try await Self.dispatch(sink, FileSinkTests.event(4), backoffs: 1)
        #expect(dead.isEmpty)
        #expect(FileManager.default.fileExists(atPath: marker))
    }
}
