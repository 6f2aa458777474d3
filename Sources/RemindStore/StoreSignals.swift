import RemindCore

/// What a store signals: an earlier wake-up (the scheduler re-reads `nextWakeAt`), and per
/// sink a new deliverable event (its dispatcher claims again). The parts of a divided store
/// share one, so one scheduler and one dispatcher per sink wait on all of them.
public struct StoreSignals: Sendable {
    public let scheduleChanged: AsyncSignal
    public let outbox: [String: AsyncSignal]

    public init(sinks: [String]) {
        scheduleChanged = AsyncSignal()
        outbox = Dictionary(uniqueKeysWithValues: sinks.map { ($0, AsyncSignal()) })
    }
}
