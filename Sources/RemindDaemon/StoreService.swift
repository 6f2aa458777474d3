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
    /// Called when the final checkpoint starts and every 10 s while it runs: the daemon asks
    /// systemd for more time to stop (`EXTEND_TIMEOUT_USEC`).
    let closing: @Sendable () -> Void

    public init(
        store: any StateStore, clock: C, logger: Logger, checkpointInterval: Duration = .seconds(2),
        snapshotInterval: Duration = .seconds(60), closing: @escaping @Sendable () -> Void = {}
    ) {
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
        await store.close()
        extending.cancel()
    }
}
