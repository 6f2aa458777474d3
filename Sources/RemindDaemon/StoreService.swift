import Logging
import RemindStore
import ServiceLifecycle

/// Owns the store's lifetime: checkpoints user files every `checkpointInterval` and a
/// snapshot every `snapshotInterval`, and on shutdown (after everything that writes has
/// stopped: it is the first service, so the last to stop) a final snapshot.
public struct StoreService<C: Clock>: Service where C.Duration == Duration {
    let store: any StateStore
    let clock: C
    let logger: Logger
    let checkpointInterval: Duration
    let snapshotInterval: Duration
    /// Runs before each checkpoint and the final one: the repeats the daemon answered from
    /// memory are handed to the store (`RepeatCache.flush`), for the checkpoint to log.
    let beforeCheckpoint: @Sendable () async throws -> Void
    /// Called when the final checkpoint starts and every 10 s while it runs: the daemon asks
    /// systemd for more time to stop (`EXTEND_TIMEOUT_USEC`).
    let closing: @Sendable () -> Void

    public init(
        store: any StateStore, clock: C, logger: Logger, checkpointInterval: Duration = .seconds(2),
        snapshotInterval: Duration = .seconds(60), beforeCheckpoint: @escaping @Sendable () async throws -> Void = {},
        closing: @escaping @Sendable () -> Void = {}
    ) {
        self.beforeCheckpoint = beforeCheckpoint
        self.store = store
        self.clock = clock
        self.logger = logger
        self.checkpointInterval = checkpointInterval
        self.snapshotInterval = snapshotInterval
        self.closing = closing
    }

    public func run() async throws {
        await cancelWhenGracefulShutdown {
            var sinceSnapshot = Duration.zero
            while !Task.isCancelled {
                do {
                    try await clock.sleep(for: checkpointInterval)
                } catch {
                    return
                }
                sinceSnapshot += checkpointInterval
                let snapshot = sinceSnapshot >= snapshotInterval
                do {
                    try await beforeCheckpoint()
                    try await store.checkpoint(snapshot: snapshot)
                    if snapshot { sinceSnapshot = .zero }
                } catch {
                    // The log still holds everything; the next checkpoint tries again.
                    logger.error("checkpoint failed, will retry: \(error)")
                }
            }
        }
        // Behind a burst of new users the last checkpoint writes many files (a million users
        // seeded at 11,000 a second took up to two minutes here): a stop making progress is
        // given the time rather than killed at `TimeoutStopSec`, which would leave it all to
        // replay at the next start.
        let (sleeper, extend) = (clock, closing)
        extend()
        let extending = Task {
            while (try? await sleeper.sleep(for: .seconds(10))) != nil, !Task.isCancelled { extend() }
        }
        do {
            try await beforeCheckpoint()
        } catch {
            logger.error("repeats not handed to the store before it closes: \(error)")
        }
        await store.close()
        extending.cancel()
    }
}
