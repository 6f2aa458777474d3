import RemindCore
import RemindStore

extension StateStore {
    /// The event `sink` would be handed next, left in the outbox: claimed and released at
    /// once, so nothing is delivered or completed.
    public func peekEvent(for sink: String) async -> OutboxEvent? {
        guard let event = await claimEvent(for: sink) else { return nil }
        await release(event.id, sink: sink)
        return event
    }
}
