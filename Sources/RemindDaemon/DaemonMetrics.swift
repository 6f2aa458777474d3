import CoreMetrics
import Prometheus
import RemindCore
import RemindPush
import RemindSinks
import RemindStore
import Synchronization

/// What `GET /metrics` exports: one Prometheus registry per daemon.
///
/// Events (reports, rejections, reminders fired, each sink's deliveries) are swift-metrics
/// counters incremented where they happen; levels (users, outbox depth, …) are read from the
/// store when scraped, so they can never drift from what `GET /v1/status` says.
public final class DaemonMetrics: Sendable {
    public let registry: PrometheusCollectorRegistry
    /// swift-metrics' factory over the registry. `remindd` also bootstraps the global
    /// `MetricsSystem` with it, so a library's own metrics land on the same page.
    public let factory: any MetricsFactory
    private let reports: CoreMetrics.Counter
    private let changes: CoreMetrics.Counter
    private let rejected: CoreMetrics.Counter
    private let remindersFired: CoreMetrics.Counter
    private let remindersSuppressed: CoreMetrics.Counter
    private let levels: Levels
    /// The store's running total of completed events at the last scrape; the counter grows by
    /// the difference.
    private let completedSeen = Mutex(0)
    /// The same for the bytes appended to the write-ahead log.
    private let logBytesSeen = Mutex(0)
    /// The funnel totals counted so far, by group and step (`recordFunnel`).
    private let funnelSeen = Mutex([String: Int]())
    private let allocationGroups = Mutex<Set<String>>([])

    /// A metric's `# HELP` text; every name the daemon registers is in ``help`` (the metrics
    /// tests check each series has its text), the name itself stands in for one that is not.
    static func helpText(_ name: String) -> String { help[name] ?? name }

    static let help: [String: String] = [
        "remindd_reports_total": "Permission reports stored.",
        "remindd_report_changes_total": "Reports that changed a user's state.",
        "remindd_reports_rejected_total": "Reports refused as invalid.",
        "remindd_reminders_fired_total": "Reminders that came due and were emitted.",
        "remindd_reminders_suppressed_total": "Reminders that came due while notifications were off.",
        "remindd_events_completed_total": "Events every sink is done with (delivered or dead-lettered).",
        "remindd_log_bytes_total": "Bytes appended to the write-ahead log (files backend).",
        "remindd_users": "Users known to remindd.",
        "remindd_open_episodes": "Users without Always access.",
        "remindd_pending_reminders": "Reminders scheduled.",
        "remindd_quarantined_files": "Files moved to quarantine/.",
        "remindd_dirty_records": "Records not yet checkpointed to their files.",
        "remindd_dead_letters": "Events given up on, waiting for a replay.",
        "remindd_sink_outbox_depth": "Events waiting for the sink.",
        SinkStatistics.Label.delivered: "Events delivered by the sink.",
        "remindd_episodes_opened_total": "Episodes opened (a reminded permission missing), by experiment group.",
        "remindd_episodes_closed_total":
            "Episodes closed, by experiment group, outcome (resolved, forgotten) and reminders before (0, 1, 2, 3+).",
        "remindd_time_to_fix_seconds": "From an episode's start to the report that resolved it, by experiment group.",
        SinkStatistics.Label.skipped:
            "Events the sink decided were not for it (a push sink and a user without a live device).",
        PushMetrics.label:
            "Push requests and skips by result: delivered, retried, unreachable, skipped_no_token, skipped_budget, failed.",
        SinkStatistics.Label.failed: "Failed delivery attempts (each retry counts).",
        SinkStatistics.Label.deadLettered: "Events the sink gave up on.",
        SinkStatistics.Label.latency: "Time from the first attempt to delivery.",
        SinkStatistics.Label.retrying: "Events waiting out a backoff before their next attempt.",
        SinkStatistics.Label.backoff: "The backoff most recently chosen before a retry.",
        SinkStatistics.Label.inFlight: "Deliveries in progress.",
        "remindd_allocation_weight": "The share of new non-holdout episodes each group is given (fixed or learned).",
        "remindd_funnel_total":
            "Episodes of all time that reached each funnel step and every step before it (as /v1/stats counts them).",
    ]

    /// Sets `remindd_allocation_weight{group}`; groups no longer weighted are removed.
    func recordAllocation(_ weights: [(name: String, weight: Double)]) {
        let names = Set(weights.map(\.name))
        allocationGroups.withLock { known in
            for name in known where !names.contains(name) {
                registry.unregisterGauge(
                    registry.makeGauge(
                        name: "remindd_allocation_weight", labels: [("group", name)],
                        help: Self.helpText("remindd_allocation_weight")))
            }
            known = names
        }
        for (name, weight) in weights {
            registry.makeGauge(
                name: "remindd_allocation_weight", labels: [("group", name)],
                help: Self.helpText("remindd_allocation_weight")
            ).set(weight)
        }
    }

    private struct Levels: Sendable {
        let users: Prometheus.Gauge
        let openEpisodes: Prometheus.Gauge
        let pendingReminders: Prometheus.Gauge
        let quarantined: Prometheus.Gauge
        let dirtyRecords: Prometheus.Gauge
        let deadLetters: Prometheus.Gauge
        let completed: Prometheus.Counter
        let logBytes: Prometheus.Counter
    }

    public init() {
        let registry = PrometheusCollectorRegistry()
        self.registry = registry
        var factory = DescribedPrometheusFactory(registry: registry, help: Self.help)
        factory.recorderBuckets["remindd_time_to_fix_seconds"] = Self.timeToFixBuckets
        self.factory = factory
        func counter(_ name: String) -> CoreMetrics.Counter { Counter(label: name, factory: factory) }
        reports = counter("remindd_reports_total")
        changes = counter("remindd_report_changes_total")
        rejected = counter("remindd_reports_rejected_total")
        remindersFired = counter("remindd_reminders_fired_total")
        remindersSuppressed = counter("remindd_reminders_suppressed_total")
        func gauge(_ name: String) -> Prometheus.Gauge { registry.makeGauge(name: name, help: Self.helpText(name)) }
        levels = Levels(
            users: gauge("remindd_users"), openEpisodes: gauge("remindd_open_episodes"),
            pendingReminders: gauge("remindd_pending_reminders"), quarantined: gauge("remindd_quarantined_files"),
            dirtyRecords: gauge("remindd_dirty_records"), deadLetters: gauge("remindd_dead_letters"),
            completed: registry.makeCounter(
                name: "remindd_events_completed_total", help: Self.helpText("remindd_events_completed_total")),
            logBytes: registry.makeCounter(
                name: "remindd_log_bytes_total", help: Self.helpText("remindd_log_bytes_total")))
    }

    func recordReport(changed: Bool) {
        reports.increment()
        if changed { changes.increment() }
    }

    /// Time-to-fix buckets: an hour, six, a day, three, a week, two, thirty days.
    static let timeToFixBuckets: [Double] = [3_600, 21_600, 86_400, 259_200, 604_800, 1_209_600, 2_592_000]

    /// `remindd_episodes_opened_total{group}` and, for what a report or delete closed,
    /// `remindd_episodes_closed_total{group,outcome,reminders}` and `remindd_time_to_fix_seconds`
    /// (docs/outcomes.md).
    func recordEpisodes(opened groups: [String], closed outcomes: [EpisodeOutcome]) {
        for group in groups {
            Counter(label: "remindd_episodes_opened_total", dimensions: [("group", group)], factory: factory)
                .increment()
        }
        for outcome in outcomes {
            let reminders = outcome.reminders >= 3 ? "3+" : String(outcome.reminders)
            Counter(
                label: "remindd_episodes_closed_total",
                dimensions: [
                    ("group", outcome.group), ("outcome", outcome.outcome.rawValue), ("reminders", reminders),
                ],
                factory: factory
            ).increment()
            guard outcome.outcome == .resolved else { continue }
            Recorder(
                label: "remindd_time_to_fix_seconds", dimensions: [("group", outcome.group)], aggregate: true,
                factory: factory
            ).record(outcome.timeToFix)
        }
    }

    func recordRejectedReport() {
        rejected.increment()
    }

    func recordFired(_ summary: FireSummary) {
        let reminders = summary.events.count { $0.kind == .reminder }
        if reminders > 0 { remindersFired.increment(by: reminders) }
        if !summary.suppressed.isEmpty { remindersSuppressed.increment(by: summary.suppressed.count) }
    }

    /// The Prometheus text exposition, with the store's levels read now.
    func exposition(statistics: StoreStatistics, sinks: [String], services: [ServiceDefinition] = []) -> [UInt8] {
        levels.users.set(Double(statistics.users))
        levels.openEpisodes.set(Double(statistics.openEpisodes))
        levels.pendingReminders.set(Double(statistics.pendingReminders))
        levels.quarantined.set(Double(statistics.quarantined))
        levels.dirtyRecords.set(Double(statistics.dirtyRecords))
        levels.deadLetters.set(Double(statistics.deadLetters))
        Self.advance(levels.completed, seen: completedSeen, to: statistics.eventsDelivered)
        Self.advance(levels.logBytes, seen: logBytesSeen, to: statistics.logBytes)
        for sink in sinks {
            registry.makeGauge(
                name: "remindd_sink_outbox_depth", labels: [("sink", sink)],
                help: Self.helpText("remindd_sink_outbox_depth")
            ).set(Double(statistics.outboxPending[sink] ?? 0))
        }
        return Self.addingServiceSeries(to: registry.emitToBuffer(), statistics: statistics, services: services)
    }

    /// `remindd_funnel_total{group,step}`: each group's ordered funnel over all episodes, as
    /// `/v1/stats` counts it, grown to the totals given (an episode only ever moves on).
    func recordFunnel(_ funnel: [StatsReport.NamedFunnel]) {
        for named in funnel {
            for (index, step) in FunnelAggregate.steps.enumerated() {
                let total = named.sum.reached[index]
                let key = "\(named.name)\u{0}\(step)"
                let grown = funnelSeen.withLock { seen in
                    defer { seen[key] = max(seen[key] ?? 0, total) }
                    return max(0, total - (seen[key] ?? 0))
                }
                // Made once per series, at 0, so that every step shows from the first scrape.
                let counter = registry.makeCounter(
                    name: "remindd_funnel_total", labels: [("group", named.name), ("step", step)],
                    help: Self.helpText("remindd_funnel_total"))
                if grown > 0 { counter.increment(by: Int64(grown)) }
            }
        }
    }

    /// Grows `counter` to a running total the store keeps (by what it gained since `seen`).
    private static func advance(_ counter: Prometheus.Counter, seen: borrowing Mutex<Int>, to total: Int) {
        let grown = seen.withLock { seen in
            defer { seen = max(seen, total) }
            return max(0, total - seen)
        }
        if grown > 0 { counter.increment(by: Int64(grown)) }
    }

    /// `remindd_users{service,state}` beside the unlabelled `remindd_users` (docs/operations.md "Metrics").
    ///
    /// The registry refuses labelled and unlabelled series in one family, which the exposition
    /// format allows; so these lines are written here, inside the family, after its unlabelled
    /// line. They are computed from the store's counts per combination of conditions, never
    /// by visiting users. (Summing the whole family double-counts: filter on `service`.)
    static func addingServiceSeries(
        to exposition: [UInt8], statistics: StoreStatistics, services: [ServiceDefinition]
    ) -> [UInt8] {
        guard !services.isEmpty else { return exposition }
        var lines = ""
        for service in services {
            let counts = service.counts(statistics.usersByConditions)
            for state in ServiceState.allCases {
                lines +=
                    "remindd_users{service=\"\(service.name)\",state=\"\(state.rawValue)\"} \(Double(counts[state] ?? 0))\n"
            }
        }
        let marker = Array("\nremindd_users ".utf8)
        guard let start = exposition.firstRange(of: marker),
            let end = exposition[start.upperBound...].firstIndex(of: UInt8(ascii: "\n"))
        else { return exposition }
        var result = exposition
        result.insert(contentsOf: Array(lines.utf8), at: end + 1)
        return result
    }
}
