import RemindCore
import RemindSinks
import Synchronization

/// A sink that fails its first `failures` attempts ("receiver down", retryable), then records
/// the ids of what it delivers, in order.
public final class RecordingSink: EventSink, Sendable {
    public let name: String
    public var type: String { "test" }
    private let state: Mutex<(failuresLeft: Int, delivered: [String])>

    public init(name: String = "recording", failures: Int = 0) {
        self.name = name
        state = Mutex((failures, []))
    }

    /// The ids delivered so far, in order.
    public var delivered: [String] { state.withLock { $0.delivered } }

    public func deliver(_ event: OutboxEvent) async throws(SinkError) -> SinkOutcome {
        let fail = state.withLock { state -> Bool in
            if state.failuresLeft > 0 {
                state.failuresLeft -= 1
                return true
            }
            state.delivered.append(event.id)
            return false
        }
        if fail { throw SinkError("receiver down") }
        return .delivered
    }
}
