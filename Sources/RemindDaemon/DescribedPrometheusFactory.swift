import CoreMetrics
import Prometheus

/// swift-metrics' factory over a Prometheus registry, like swift-prometheus's own
/// `PrometheusMetricsFactory`, but giving each metric the `# HELP` text the daemon knows for
/// its label: an operator browsing `/metrics` should not have to read the source.
struct DescribedPrometheusFactory: MetricsFactory {
    let registry: PrometheusCollectorRegistry
    /// Help text by metric name; unknown names (a library's own metrics) get none.
    let help: [String: String]
    /// Histogram buckets by metric name, for recorders whose values are not small numbers
    /// (time to fix spans hours to weeks).
    var recorderBuckets: [String: [Double]] = [:]

    /// Timer buckets: delivery latency spans a local file's milliseconds to an hour of retries.
    static let durationBuckets: [Duration] = [
        .milliseconds(5), .milliseconds(25), .milliseconds(100), .milliseconds(500), .seconds(1), .seconds(5),
        .seconds(30), .seconds(120), .seconds(600), .seconds(3600),
    ]

    func makeCounter(label: String, dimensions: [(String, String)]) -> any CounterHandler {
        registry.makeCounter(name: label, labels: dimensions, help: help[label] ?? "")
    }

    func makeFloatingPointCounter(label: String, dimensions: [(String, String)]) -> any FloatingPointCounterHandler {
        registry.makeCounter(name: label, labels: dimensions, help: help[label] ?? "")
    }

    func makeMeter(label: String, dimensions: [(String, String)]) -> any MeterHandler {
        registry.makeGauge(name: label, labels: dimensions, help: help[label] ?? "")
    }

    func makeRecorder(label: String, dimensions: [(String, String)], aggregate: Bool) -> any RecorderHandler {
        guard aggregate else { return registry.makeGauge(name: label, labels: dimensions, help: help[label] ?? "") }
        return registry.makeValueHistogram(
            name: label, labels: dimensions, buckets: recorderBuckets[label] ?? [0.001, 0.01, 0.1, 1, 10, 100],
            help: help[label] ?? "")
    }

    func makeTimer(label: String, dimensions: [(String, String)]) -> any TimerHandler {
        registry.makeDurationHistogram(
            name: label, labels: dimensions, buckets: Self.durationBuckets,
            help: help[label] ?? "")
    }

    func destroyCounter(_ handler: any CounterHandler) {
        if let counter = handler as? Prometheus.Counter { registry.unregisterCounter(counter) }
    }

    func destroyFloatingPointCounter(_ handler: any FloatingPointCounterHandler) {
        if let counter = handler as? Prometheus.Counter { registry.unregisterCounter(counter) }
    }

    func destroyMeter(_ handler: any MeterHandler) {
        if let gauge = handler as? Prometheus.Gauge { registry.unregisterGauge(gauge) }
    }

    func destroyRecorder(_ handler: any RecorderHandler) {
        switch handler {
        case let gauge as Prometheus.Gauge: registry.unregisterGauge(gauge)
        case let histogram as ValueHistogram: registry.unregisterValueHistogram(histogram)
        default: break
        }
    }

    func destroyTimer(_ handler: any TimerHandler) {
        if let histogram = handler as? DurationHistogram { registry.unregisterDurationHistogram(histogram) }
    }
}
