import RemindCore
import RemindSinks
import Synchronization

/// An in-memory `OutboxSource` for driving a `SinkDispatcher` in tests: events in order, each
/// claimed once, completions recorded. Unlike the store's outbox it does not hold back a
/// user's later events while an earlier one is claimed: give it one user's events only when
/// order matters (per-user ordering is the store's own test).
public final class MemoryOutbox: OutboxSource, Sendable {
    private let state: Mutex<(events: [OutboxEvent], claimed: Set<String>)>
    private let completions = Mutex<[String]>([])
    /// Wakes the dispatcher (`waitForEvents`).
    private let changed = AsyncSignal()
    /// Wakes a test waiting for completions.
    private let completedSignal = AsyncSignal()

    public init(_ events: [OutboxEvent]) {
        state = Mutex((events, []))
    }

    /// The ids completed so far, in completion order.
    public var completed: [String] { completions.withLock { $0 } }

    /// Returns once `count` events are completed; throws after `limit` of real time.
    public func waitUntilCompleted(_ count: Int, within limit: Duration = .seconds(30)) async throws {
        try await waitUntil("\(count) completed events", within: limit, signal: completedSignal) {
            completed.count >= count
        }
    }

    public func claimEvent(for sink: String) async -> OutboxEvent? {
        state.withLock { state in
            guard let event = state.events.first(where: { !state.claimed.contains($0.id) }) else { return nil }
            state.claimed.insert(event.id)
            return event
        }
    }

    public func waitForEvents(for sink: String) async { await changed.wait() }

    public func complete(_ eventID: String, sink: String) async {
        state.withLock { $0.events.removeAll { $0.id == eventID } }
        completions.withLock { $0.append(eventID) }
        changed.signal()
        completedSignal.signal()
    }

    public func release(_ eventID: String, sink: String) async {
        _ = state.withLock { $0.claimed.remove(eventID) }
        changed.signal()
    }
}
