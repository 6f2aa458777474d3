import Logging
import RemindCore

/// Feeds one sink from the outbox: in order, one event at a time, retrying failures with
/// backoff. Each sink has its own dispatcher, so a slow or dead sink delays only itself.
///
/// Events that exhaust their attempts (or fail permanently) are handed to `deadLetter` and
/// completed, so the queue moves on; nothing leaves the outbox any other way.
public struct SinkDispatcher<C: Clock>: Sendable where C.Duration == Duration {
    public let sink: any EventSink
    public let retry: RetryPolicy
    public let statistics: SinkStatistics
    let source: any OutboxSource
    let clock: C
    let logger: Logger
    /// Stores an event given up on; throws when that could not be made durable (the event then
    /// stays in the outbox and storing is tried again).
    let deadLetter: @Sendable (OutboxEvent, _ attempts: Int, _ lastError: String) async throws -> Void
    /// The journald MESSAGE_ID of a failed attempt (the catalog's "delivery failed").
    let failureMessageID: String?
    /// Deliveries (attempts included) per second; nil is unlimited.
    let rateLimit: TokenBucket?

    public init(
        sink: any EventSink, retry: RetryPolicy, source: any OutboxSource, clock: C, logger: Logger,
        statistics: SinkStatistics = SinkStatistics(), failureMessageID: String? = nil,
        rateLimit: TokenBucket? = nil,
        deadLetter: @escaping @Sendable (OutboxEvent, Int, String) async throws -> Void
    ) {
        self.failureMessageID = failureMessageID
        self.rateLimit = rateLimit
        self.sink = sink
        self.retry = retry
        self.source = source
        self.clock = clock
        self.logger = logger
        self.statistics = statistics
        self.deadLetter = deadLetter
    }

    /// Runs until the task is cancelled; an event being delivered at that moment is
    /// finished (or left in the outbox for the next start).
    public func run() async {
        var random = SystemRandomNumberGenerator()
        var bucket = rateLimit
        var lastRefill = clock.now
        while !Task.isCancelled {
            guard let event = await source.nextEvent(for: sink.name) else {
                await source.waitForEvents(for: sink.name)
                continue
            }
            await deliver(event, random: &random, bucket: &bucket, lastRefill: &lastRefill)
        }
    }

    /// Waits for a token of the sink's rate limit; false when cancelled meanwhile.
    private func takeToken(_ bucket: inout TokenBucket?, lastRefill: inout C.Instant) async -> Bool {
        guard var current = bucket else { return true }
        while true {
            let now = clock.now
            let elapsed = lastRefill.duration(to: now)
            current.refill(elapsed: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
            lastRefill = now
            let wait = current.take()
            if wait == 0 { break }
            do {
                try await clock.sleep(for: .microseconds(Int64((wait * 1_000_000).rounded(.up))))
            } catch {
                bucket = current
                return false
            }
        }
        bucket = current
        return true
    }

    private func deliver(
        _ event: OutboxEvent, random: inout SystemRandomNumberGenerator, bucket: inout TokenBucket?,
        lastRefill: inout C.Instant
    ) async {
        let started = clock.now
        var attempt = 0
        while true {
            attempt += 1
            guard await takeToken(&bucket, lastRefill: &lastRefill) else { return }
            do {
                try await sink.deliver(event)
                let latency = started.duration(to: clock.now)
                statistics.update {
                    $0.delivered += 1
                    $0.latencySum += Double(latency.components.seconds) + Double(latency.components.attoseconds) / 1e18
                    $0.latencyCount += 1
                }
                await source.complete(event.id, sink: sink.name)
                return
            } catch {
                statistics.update {
                    $0.failed += 1
                    $0.lastError = error.message
                }
                let exhausted = !error.retryable || attempt >= retry.maxAttempts
                var metadata: Logger.Metadata = [
                    "REMINDD_SINK": .string(sink.name), "REMINDD_EVENT_ID": .string(event.id),
                    "REMINDD_USER_ID": .string(event.userID.rawValue),
                ]
                if let failureMessageID { metadata["MESSAGE_ID"] = .string(failureMessageID) }
                logger.warning(
                    "delivery to \(sink.name) failed (attempt \(attempt)): \(error.message)", metadata: metadata)
                if exhausted {
                    while true {
                        do {
                            try await deadLetter(event, attempt, error.message)
                            break
                        } catch {
                            logger.error("cannot store dead letter \(event.id) for \(sink.name): \(error)")
                            do {
                                try await clock.sleep(for: .milliseconds(Int64(retry.initialBackoffSeconds * 1000)))
                            } catch {
                                return  // shutting down: the event stays in the outbox
                            }
                        }
                    }
                    statistics.update { $0.deadLettered += 1 }
                    await source.complete(event.id, sink: sink.name)
                    return
                }
                let delay = retry.delay(afterAttempt: attempt, retryAfter: error.retryAfter, using: &random)
                do {
                    try await clock.sleep(for: .milliseconds(Int64(delay * 1000)))
                } catch {
                    // Shutting down: the event stays in the outbox and is retried next start.
                    return
                }
            }
        }
    }
}
