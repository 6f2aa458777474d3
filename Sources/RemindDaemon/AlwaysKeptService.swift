import Foundation
import ServiceLifecycle

/// Reads every user's history for "Always kept" (`DaemonRuntime.refreshAlwaysKept`) once the
/// store is ready, then again and again, resting a hundred times as long as the last reading
/// took (at least `minimumRest`, at most `maximumRest`): a few seconds for a small store, about
/// an hour for a million users, so that it never takes more than about 1 % of a core.
struct AlwaysKeptService<C: Clock>: Service where C.Duration == Duration {
    let runtime: DaemonRuntime
    let clock: C
    var minimumRest: Duration = .seconds(5)
    var maximumRest: Duration = .seconds(3_600)

    func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                var rest = Duration.seconds(1)
                if runtime.storeReady.isOpen {
                    do {
                        let took = try await runtime.refreshAlwaysKept()
                        rest = min(maximumRest, max(minimumRest, took * 100))
                    } catch {
                        // The store is unavailable for now (PostgreSQL down): try again later.
                        runtime.logger.debug("reading the histories for Always kept: \(error)")
                        rest = minimumRest
                    }
                }
                do { try await clock.sleep(for: rest) } catch { return }
            }
        }
    }
}
