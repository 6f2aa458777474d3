import Synchronization

/// Per-sink counters, read by status and metrics while the dispatcher updates them.
public final class SinkStatistics: Sendable {
    public struct Counts: Sendable, Equatable {
        public var delivered = 0
        /// Failed attempts (each retry counts).
        public var failed = 0
        public var deadLettered = 0
        public var lastError: String?
        /// Sum and count of delivery latencies (first attempt to success), in seconds.
        public var latencySum = 0.0
        public var latencyCount = 0
    }

    private let counts = Mutex(Counts())

    public init() {}

    public var snapshot: Counts { counts.withLock { $0 } }

    func update(_ body: (inout Counts) -> Void) {
        counts.withLock { body(&$0) }
    }
}
