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

    public init(
        store: any StateStore, clock: C, logger: Logger, checkpointInterval: Duration = .seconds(2),
        snapshotInterval: Duration = .seconds(60)
    ) {
        self.store = store
        self.clock = clock
        self.logger = logger
        self.checkpointInterval = checkpointInterval
        self.snapshotInterval = snapshotInterval
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
        await store.close()
    }
}
