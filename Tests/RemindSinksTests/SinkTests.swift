import Dispatch
import Foundation
import Logging
import NIOPosix
import RemindCore
import RemindSinks
import RemindTesting
import Synchronization
import Testing

struct FileSinkTests {
    static func event(_ sequence: Int) -> OutboxEvent {
        OutboxEvent(
            .reminder(
                .init(
                    userID: Fixtures.userID(), title: "t", body: "b", reason: .locationNotAuthorizedAlways,
                    errors: [.locationNotAuthorizedAlways], sequence: sequence,
                    episodeStartedAt: Fixtures.date("2026-11-15T10:00:00Z"),
                    dueAt: Fixtures.date("2026-11-22T10:00:00Z"), createdAt: Fixtures.date("2026-11-22T10:00:00Z"))))
    }

    /// Each event becomes exactly one line holding the event's bytes, appended in order.
    @Test func appendsOneLinePerEvent() async throws {
        let path = NSTemporaryDirectory() + "file-sink-\(UUID().uuidString).jsonl"
        defer { try? FileManager.default.removeItem(atPath: path) }
        let sink = FileSink(path: path)
        for sequence in 1...3 { #expect(try await sink.deliver(Self.event(sequence)) == .delivered) }
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map(String.init)
        #expect(lines == (1...3).map { Self.event($0).json })
    }

    /// 300 deliveries that arrive while a write is under way are group-committed: the next
    /// append takes them all under one fsync, and the file holds each event exactly once as a
    /// whole line.
    @Test func concurrentDeliveriesShareWritesAndStayWholeLines() async throws {
        let path = NSTemporaryDirectory() + "file-sink-\(UUID().uuidString).jsonl"
        defer { try? FileManager.default.removeItem(atPath: path) }
        // A one-thread pool held by a gate: the sink's drain queues behind it while every
        // delivery arrives, as it would behind a slow fsync.
        let pool = NIOThreadPool(numberOfThreads: 1)
        pool.start()
        let gate = DispatchSemaphore(value: 0)
        pool.submit { _ in gate.wait() }
        let sink = FileSink(path: path, io: pool)
        let events = (1...300).map { Self.event($0) }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for event in events { group.addTask { _ = try await sink.deliver(event) } }
            try await waitUntil("300 queued lines") { sink.queued == events.count }
            gate.signal()
            try await group.waitForAll()
        }
        try await pool.shutdownGracefully()
        #expect(sink.commits == 1)
        let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map(String.init)
        #expect(lines.count == events.count)
        #expect(Set(lines) == Set(events.map(\.json)))
    }

    /// A file that cannot be opened is a retryable failure naming the path.
    @Test func unwritablePathFailsRetryably() async {
        let sink = FileSink(path: "/proc/remindd-no-such-dir/events.jsonl")
        do {
            #expect(try await sink.deliver(Self.event(1)) == .delivered)
            Issue.record("delivered to an impossible path")
        } catch {
            #expect(error.retryable)
            #expect(error.message.contains("/proc/remindd-no-such-dir/events.jsonl"))
        }
    }
}

struct RetryPolicyTests {
    /// The bound doubles from the initial backoff and stops at the maximum; every wait lies in
    /// [0, bound], and a receiver's Retry-After is a minimum wait, beyond the maximum backoff
    /// but not beyond an hour.
    @Test func backoffIsExponentialWithFullJitter() {
        let policy = RetryPolicy(initialBackoffSeconds: 1, maxBackoffSeconds: 60, maxAttempts: 12)
        #expect((1...8).map { policy.backoffBound(afterAttempt: $0) } == [1, 2, 4, 8, 16, 32, 60, 60])
        #expect(policy.backoffBound(afterAttempt: 500) == 60)
        var random = SystemRandomNumberGenerator()
        var waits: [Double] = []
        for _ in 0..<1000 {
            let wait = policy.delay(afterAttempt: 4, retryAfter: nil, using: &random)
            #expect(wait >= 0 && wait <= 8)
            waits.append(wait)
        }
        // Full jitter spreads over the whole interval, not around its end.
        #expect(waits.min()! < 1 && waits.max()! > 7)
        #expect(policy.delay(afterAttempt: 1, retryAfter: 30, using: &random) == 30)
        #expect(policy.delay(afterAttempt: 1, retryAfter: 999, using: &random) == 999)
        #expect(policy.delay(afterAttempt: 1, retryAfter: 86_400, using: &random) == 3600)
        // A Retry-After shorter than the backoff drawn does not shorten it.
        let late = (0..<200).map { _ in policy.delay(afterAttempt: 8, retryAfter: 1, using: &random) }
        #expect(late.allSatisfy { $0 >= 1 && $0 <= 60 } && late.max()! > 30)
    }
}

/// A sink that holds every delivery until the test opens the gate, counting how many it
/// holds at once.
final class GateSink: EventSink, Sendable {
    let name = "gate"
    var type: String { "test" }
    private let state = Mutex((holding: 0, most: 0, open: false, waiters: [CheckedContinuation<Void, Never>]()))
    let arrived = AsyncSignal()

    var most: Int { state.withLock { $0.most } }
    var holding: Int { state.withLock { $0.holding } }

    func open() {
        let waiters = state.withLock { state in
            state.open = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    func deliver(_ event: OutboxEvent) async throws(SinkError) -> SinkOutcome {
        await withCheckedContinuation { continuation in
            let proceed = state.withLock { state in
                state.holding += 1
                state.most = max(state.most, state.holding)
                if !state.open { state.waiters.append(continuation) }
                return state.open
            }
            arrived.signal()
            if proceed { continuation.resume() }
        }
        state.withLock { $0.holding -= 1 }
        return .delivered
    }
}

struct SinkDispatcherTests {
    /// Failures are retried after backoff sleeps on the injected clock, in order; the event
    /// is completed once delivered and counted.
    @Test func retriesThenDeliversInOrder() async throws {
        let clock = ManualClock()
        let sink = RecordingSink(failures: 2)
        let outbox = MemoryOutbox([FileSinkTests.event(1), FileSinkTests.event(2)])
        let dispatcher = SinkDispatcher(
            sink: sink, retry: RetryPolicy(initialBackoffSeconds: 10, maxBackoffSeconds: 10, maxAttempts: 5),
            source: outbox, clock: clock, logger: Logger(label: "test"), deadLetter: { _, _, _ in })
        let task = Task { await dispatcher.run() }
        for _ in 0..<2 {
            await clock.waitForSleepers(1)
            clock.advance(by: .seconds(10))
        }
        try await outbox.waitUntilCompleted(2)
        #expect(sink.delivered == [FileSinkTests.event(1).id, FileSinkTests.event(2).id])
        #expect(dispatcher.statistics.snapshot.failed == 2)
        #expect(dispatcher.statistics.snapshot.delivered == 2)
        task.cancel()
    }

    /// After maxAttempts the event is dead-lettered with its last error and the queue moves on.
    @Test func deadLettersAfterMaxAttempts() async throws {
        let clock = ManualClock()
        let sink = RecordingSink(failures: 3)
        let outbox = MemoryOutbox([FileSinkTests.event(1), FileSinkTests.event(2)])
        let dead = Mutex<[(String, Int, String)]>([])
        let dispatcher = SinkDispatcher(
            sink: sink, retry: RetryPolicy(initialBackoffSeconds: 1, maxBackoffSeconds: 1, maxAttempts: 3),
            source: outbox, clock: clock, logger: Logger(label: "test"),
            deadLetter: { event, attempts, error in
                // As a store does: stored, and out of the queue in the same step.
                dead.withLock { $0.append((event.id, attempts, error)) }
                await outbox.complete(event.id, sink: sink.name)
            })
        let task = Task { await dispatcher.run() }
        for _ in 0..<2 {
            await clock.waitForSleepers(1)
            clock.advance(by: .seconds(1))
        }
        try await outbox.waitUntilCompleted(2)
        let deadLetters = dead.withLock { $0 }
        #expect(deadLetters.count == 1)
        #expect(deadLetters.first?.0 == FileSinkTests.event(1).id)
        #expect(deadLetters.first?.1 == 3)
        #expect(deadLetters.first?.2 == "receiver down")
        #expect(sink.delivered == [FileSinkTests.event(2).id])
        task.cancel()
    }
}

struct ConcurrentDispatcherTests {
    /// With maxConcurrency 3 a slow receiver holds three deliveries at once, never a fourth;
    /// once it answers, the rest follow and every event is completed once.
    @Test func deliversUpToMaxConcurrencyAtOnce() async throws {
        let sink = GateSink()
        let events = (1...7).map { FileSinkTests.event($0) }
        let outbox = MemoryOutbox(events)
        let dispatcher = SinkDispatcher(
            sink: sink, retry: RetryPolicy(), source: outbox, clock: ManualClock(), logger: Logger(label: "test"),
            maxConcurrency: 3, deadLetter: { _, _, _ in })
        let task = Task { await dispatcher.run() }
        try await waitUntil("three held deliveries", signal: sink.arrived) { sink.holding >= 3 }
        #expect(dispatcher.statistics.snapshot.inFlight == 3)
        sink.open()
        try await outbox.waitUntilCompleted(events.count)
        #expect(sink.most == 3)
        #expect(outbox.completed.sorted() == events.map(\.id).sorted())
        #expect(dispatcher.statistics.snapshot.delivered == events.count)
        task.cancel()
    }
}

struct TokenBucketTests {
    /// A full bucket lets `burst` deliveries through at once, then one per 1/rate seconds;
    /// tokens saved while idle never exceed the burst.
    @Test func burstThenSteadyRate() {
        var bucket = TokenBucket(ratePerSecond: 10, burst: 3)
        #expect((0..<3).map { _ in bucket.take() } == [0, 0, 0])
        #expect(abs(bucket.take() - 0.1) < 1e-9)
        bucket.refill(elapsed: 0.05)
        #expect(abs(bucket.take() - 0.05) < 1e-9)
        bucket.refill(elapsed: 3600)
        #expect((0..<4).map { _ in bucket.take() == 0 } == [true, true, true, false])
    }

    /// The burst defaults to one second's worth.
    @Test func defaultBurstIsOneSecond() {
        #expect(TokenBucket(ratePerSecond: 5).burst == 5)
        #expect(TokenBucket(ratePerSecond: 0.5).burst == 1)
    }
}

struct RateLimitedDispatcherTests {
    /// With 2 deliveries a second and a burst of 1, the second event waits half a second on
    /// the injected clock before it is delivered.
    @Test func rateLimitSpacesDeliveries() async throws {
        let clock = ManualClock()
        let sink = RecordingSink(failures: 0)
        let outbox = MemoryOutbox([FileSinkTests.event(1), FileSinkTests.event(2)])
        let dispatcher = SinkDispatcher(
            sink: sink, retry: RetryPolicy(), source: outbox, clock: clock, logger: Logger(label: "test"),
            rateLimit: TokenBucket(ratePerSecond: 2, burst: 1), deadLetter: { _, _, _ in })
        let task = Task { await dispatcher.run() }
        await clock.waitForSleeper(until: .milliseconds(500))
        #expect(sink.delivered == [FileSinkTests.event(1).id])
        clock.advance(by: .milliseconds(500))
        try await outbox.waitUntilCompleted(2)
        #expect(sink.delivered == [FileSinkTests.event(1).id, FileSinkTests.event(2).id])
        task.cancel()
    }
}
