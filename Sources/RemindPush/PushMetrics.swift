import CoreMetrics
import Synchronization

/// `remindd_push_total{sink,result}`: what became of each push a sink was handed (docs/push.md).
public final class PushMetrics: Sendable {
    public static let label = "remindd_push_total"

    public enum Result: String, Sendable, CaseIterable {
        /// The service accepted it (APNs 200, FCM 200).
        case delivered
        /// A failed attempt that will be tried again (429, 5xx, a timeout, no connection).
        case retried
        /// The token is dead: answered so now, or known from before (then skipped).
        case unreachable
        /// The user has no address for this service.
        case skippedNoToken = "skipped_no_token"
        /// A heartbeat over the user's background-push budget.
        case skippedBudget = "skipped_budget"
        /// Refused for good (another 4xx): the event is dead-lettered.
        case failed
        /// A reminder for an unreachable user, handed to the fallback sinks (docs/fallback.md).
        case rerouted
    }

    private let counters: [Result: Counter]
    private let counts = Mutex<[Result: Int]>([:])

    public init(sink: String, factory: any MetricsFactory = NOOPMetricsHandler.instance) {
        var counters: [Result: Counter] = [:]
        for result in Result.allCases {
            counters[result] = Counter(
                label: Self.label, dimensions: [("sink", sink), ("result", result.rawValue)], factory: factory)
        }
        self.counters = counters
    }

    func record(_ result: Result) {
        counters[result]?.increment()
        counts.withLock { $0[result, default: 0] += 1 }
    }

    /// How often each result happened, for tests and support.
    public var snapshot: [Result: Int] { counts.withLock { $0 } }
}
