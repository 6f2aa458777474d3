import CoreMetrics
import Synchronization

/// One sink's counters: a snapshot for `GET /v1/status`, and the same facts as swift-metrics
/// instruments for whatever metrics backend the program chose (the daemon's is Prometheus).
///
/// The library only speaks the swift-metrics API, so it never decides the export format; the
/// factory is passed in rather than taken from the global `MetricsSystem`, so that several
/// daemons in one test process keep their numbers apart.
public final class SinkStatistics: Sendable {
    public struct Counts: Sendable, Equatable {
        public var delivered = 0
        /// Events the sink decided were not for it (a push sink and a user without a device).
        public var skipped = 0
        /// Failed attempts (each retry counts).
        public var failed = 0
        /// Events waiting out a backoff before their next attempt.
        public var retrying = 0
        /// Events being handed to the sink right now.
        public var inFlight = 0
    }

    /// The instruments' labels; the daemon's exporter gives each its help text.
    public enum Label {
        public static let delivered = "remindd_sink_delivered_total"
        public static let skipped = "remindd_sink_skipped_total"
        public static let failed = "remindd_sink_failed_attempts_total"
        public static let deadLettered = "remindd_sink_dead_lettered_total"
        public static let latency = "remindd_sink_delivery_seconds"
        public static let retrying = "remindd_sink_retrying_events"
        public static let backoff = "remindd_sink_last_backoff_seconds"
        public static let inFlight = "remindd_sink_in_flight_events"
    }

    private let counts = Mutex(Counts())
    private let delivered: Counter
    private let skipped: Counter
    private let failed: Counter
    private let deadLettered: Counter
    private let latency: Timer
    private let retrying: Gauge
    private let backoff: Gauge
    private let inFlight: Gauge

    /// Without a factory the instruments go nowhere (swift-metrics' no-op handler).
    public init(sink: String = "", type: String = "", factory: any MetricsFactory = NOOPMetricsHandler.instance) {
        let dimensions = [("sink", sink), ("type", type)]
        delivered = Counter(label: Label.delivered, dimensions: dimensions, factory: factory)
        skipped = Counter(label: Label.skipped, dimensions: dimensions, factory: factory)
        failed = Counter(label: Label.failed, dimensions: dimensions, factory: factory)
        deadLettered = Counter(label: Label.deadLettered, dimensions: dimensions, factory: factory)
        latency = Timer(label: Label.latency, dimensions: dimensions, factory: factory)
        retrying = Gauge(label: Label.retrying, dimensions: dimensions, factory: factory)
        backoff = Gauge(label: Label.backoff, dimensions: dimensions, factory: factory)
        inFlight = Gauge(label: Label.inFlight, dimensions: dimensions, factory: factory)
    }

    public var snapshot: Counts { counts.withLock { $0 } }

    func recordDelivered(latency duration: Duration) {
        counts.withLock { $0.delivered += 1 }
        delivered.increment()
        latency.recordNanoseconds(
            duration.components.seconds * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000)
    }

    func recordSkipped() {
        counts.withLock { $0.skipped += 1 }
        skipped.increment()
    }

    func recordFailure() {
        counts.withLock { $0.failed += 1 }
        failed.increment()
    }

    func recordDeadLetter() {
        deadLettered.increment()
    }

    /// An event starts waiting `seconds` before its next attempt.
    func recordBackoff(seconds: Double) {
        let waiting = counts.withLock {
            $0.retrying += 1
            return $0.retrying
        }
        retrying.record(waiting)
        backoff.record(seconds)
    }

    /// The wait started by `recordBackoff` is over (or was cut short by shutdown).
    func recordBackoffEnded() {
        retrying.record(
            counts.withLock {
                $0.retrying -= 1; return $0.retrying
            })
    }

    func recordStarted() {
        inFlight.record(
            counts.withLock {
                $0.inFlight += 1; return $0.inFlight
            })
    }

    func recordFinished() {
        inFlight.record(
            counts.withLock {
                $0.inFlight -= 1; return $0.inFlight
            })
    }
}
