import Foundation
import ServiceLifecycle

/// Recomputes the adaptive allocation and the population's active hour at the start of each
/// `reweightSeconds` slot (`DaemonRuntime.relearn`), and once the store is ready at start; in
/// between, the population's hour every `populationHourInterval`
/// (`DaemonRuntime.refreshPopulationHour`: 24 counts the store keeps).
struct LearningService<C: Clock>: Service where C.Duration == Duration {
    let runtime: DaemonRuntime
    let clock: C
    /// The longest sleep: a wall clock that jumps, or a reload that shortened the interval, is
    /// noticed within it.
    var maximumSleep: Duration = .seconds(60)
    var populationHourInterval: TimeInterval = 60

    func run() async throws {
        await cancelWhenGracefulShutdown {
            var next = Date.distantPast
            var nextHour = Date.distantPast
            var first = true
            while !Task.isCancelled {
                // Nothing to learn from before the store is ready (PostgreSQL may be down at
                // start). Looked at each turn: a wait on the latch would not end at shutdown.
                var wait = Duration.seconds(1)
                if runtime.storeReady.isOpen {
                    let now = runtime.wallClock()
                    if now >= next {
                        if first {
                            await runtime.relearnAtStart()
                            first = false
                        } else {
                            await runtime.relearn()
                        }
                        next = runtime.nextRelearnAt(after: now)
                        nextHour = now.addingTimeInterval(populationHourInterval)
                    } else if now >= nextHour {
                        await runtime.refreshPopulationHour()
                        nextHour = now.addingTimeInterval(populationHourInterval)
                    }
                    let soonest = min(next, nextHour)
                    wait = min(maximumSleep, .seconds(max(0.001, soonest.timeIntervalSince(runtime.wallClock()))))
                }
                do { try await clock.sleep(for: wait) } catch { return }
            }
        }
    }
}
