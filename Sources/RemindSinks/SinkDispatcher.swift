import Logging
import RemindCore
import Synchronization

/// Feeds one sink from the outbox, retrying failures with backoff. Each sink has its own
/// dispatcher, so a slow or dead sink delays only itself.
///
/// Up to `maxConcurrency` events are in the sink's hands at once (a webhook receiver answers
/// many requests in parallel; a slow one should not make every other user wait), but never two
/// of the same user: the outbox hands out a user's events one after another, so a withdraw
/// never overtakes the reminder it withdraws.
///
/// Events that exhaust their attempts (or fail permanently) are handed to `deadLetter`, which
/// takes them out of the sink's queue as it stores them, so the queue moves on; nothing leaves
/// the outbox any other way. (Not stored first and completed after: an operator's replay in
/// between would be undone by the completion.)
public struct SinkDispatcher<C: Clock>: Sendable where C.Duration == Duration {
    public let sink: any EventSink
    public let retry: RetryPolicy
    public let statistics: SinkStatistics
    public let maxConcurrency: Int
    let source: any OutboxSource
    let clock: C
    let logger: Logger
    /// Stores an event given up on and takes it out of the sink's queue in the same durable step
    /// (`DeadLetterStore.deadLetter`); throws when that could not be made durable (the event then
    /// stays in the outbox and storing is tried again).
    let deadLetter: @Sendable (OutboxEvent, _ attempts: Int, _ lastError: String) async throws -> Void
    /// The journald MESSAGE_ID of a failed attempt (the catalog's "delivery failed").
    let failureMessageID: String?
    /// Deliveries (attempts included) per second, shared by the concurrent deliveries; nil is
    /// unlimited.
    let limiter: RateLimiter<C>?

    public init(
        sink: any EventSink, retry: RetryPolicy, source: any OutboxSource, clock: C, logger: Logger,
        statistics: SinkStatistics = SinkStatistics(), failureMessageID: String? = nil,
        rateLimit: TokenBucket? = nil, maxConcurrency: Int = 1,
        deadLetter: @escaping @Sendable (OutboxEvent, Int, String) async throws -> Void
    ) {
        self.failureMessageID = failureMessageID
        self.limiter = rateLimit.map { RateLimiter(bucket: $0, clock: clock) }
        self.maxConcurrency = max(1, maxConcurrency)
        self.sink = sink
        self.retry = retry
        self.source = source
        self.clock = clock
        self.logger = logger
        self.statistics = statistics
        self.deadLetter = deadLetter
    }

    /// Runs until the task is cancelled; deliveries in progress at that moment are finished or
    /// left in the outbox for the next start.
    public func run() async {
        await withTaskGroup(of: Void.self) { group in
            var running = 0
            // Slots are refilled in batches, not one claim per finished delivery: a claim is a
            // round trip to the database on PostgreSQL, and one per event bounded a burst there
            // (`make bench` W8). A quarter of the slots (at least one) free before claiming
            // keeps deliveries near the limit.
            let refillAt = maxConcurrency - max(1, maxConcurrency / 4)
            while !Task.isCancelled {
                if running > refillAt {
                    await group.next()
                    running -= 1
                    continue
                }
                let events = await source.claimEvents(for: sink.name, limit: maxConcurrency - running)
                guard !events.isEmpty else {
                    // Woken by a new event, or by a completion that unblocks a user's next one.
                    await source.waitForEvents(for: sink.name)
                    continue
                }
                for event in events {
                    running += 1
                    group.addTask {
                        statistics.recordStarted()
                        defer { statistics.recordFinished() }
                        if await !deliver(event) {
                            await source.release(event.id, sink: sink.name)
                        }
                    }
                }
            }
        }
    }

    /// Delivers one event, retrying until delivered or given up on; false when shutdown cut it
    /// short (the event stays in the outbox).
    private func deliver(_ event: OutboxEvent) async -> Bool {
        var random = SystemRandomNumberGenerator()
        let started = clock.now
        var attempt = 0
        while true {
            attempt += 1
            if let limiter {
                guard await limiter.take() else { return false }
            }
            do {
                switch try await sink.deliver(event) {
                case .delivered: statistics.recordDelivered(latency: started.duration(to: clock.now))
                case .skipped: statistics.recordSkipped()
                }
                await source.complete(event.id, sink: sink.name)
                return true
            } catch {
                // Shutdown cancelled the attempt (an HTTP client ends its request then): not the
                // sink's failure, and no attempt spent. The event goes back to the outbox.
                if Task.isCancelled { return false }
                statistics.recordFailure()
                var metadata: Logger.Metadata = [
                    "REMINDD_SINK": .string(sink.name), "REMINDD_EVENT_ID": .string(event.id),
                    "REMINDD_USER_ID": .string(event.userID.rawValue),
                ]
                if let failureMessageID { metadata["MESSAGE_ID"] = .string(failureMessageID) }
                logger.warning(
                    "delivery to \(sink.name) failed (attempt \(attempt)): \(error.message)", metadata: metadata)
                if !error.retryable || attempt >= retry.maxAttempts {
                    return await giveUp(event, attempts: attempt, lastError: error.message)
                }
                let delay = retry.delay(afterAttempt: attempt, retryAfter: error.retryAfter, using: &random)
                statistics.recordBackoff(seconds: delay)
                defer { statistics.recordBackoffEnded() }
                do {
                    try await clock.sleep(for: .milliseconds(Int64(delay * 1000)))
                } catch {
                    return false
                }
            }
        }
    }

    /// Stores the event as a dead letter, which takes it out of the queue (retrying the store
    /// until it is durable); false when shutdown came first.
    private func giveUp(_ event: OutboxEvent, attempts: Int, lastError: String) async -> Bool {
        while true {
            do {
                try await deadLetter(event, attempts, lastError)
                break
            } catch {
                logger.error("cannot store dead letter \(event.id) for \(sink.name): \(error)")
                do {
                    try await clock.sleep(for: .milliseconds(Int64(retry.initialBackoffSeconds * 1000)))
                } catch {
                    return false
                }
            }
        }
        statistics.recordDeadLetter()
        return true
    }
}

/// A token bucket shared by a sink's concurrent deliveries, refilled from the clock.
final class RateLimiter<C: Clock>: Sendable where C.Duration == Duration {
    private struct State {
        var bucket: TokenBucket
        var lastRefill: C.Instant
    }

    private let state: Mutex<State>
    private let clock: C

    init(bucket: TokenBucket, clock: C) {
        self.clock = clock
        self.state = Mutex(State(bucket: bucket, lastRefill: clock.now))
    }

    /// Waits for a token; false when cancelled meanwhile.
    func take() async -> Bool {
        while true {
            let now = clock.now
            let wait = state.withLock { state -> Double in
                state.bucket.refill(elapsed: state.lastRefill.duration(to: now).seconds)
                state.lastRefill = now
                return state.bucket.take()
            }
            if wait == 0 { return true }
            do {
                try await clock.sleep(for: .microseconds(Int64((wait * 1_000_000).rounded(.up))))
            } catch {
                return false
            }
        }
    }
}
