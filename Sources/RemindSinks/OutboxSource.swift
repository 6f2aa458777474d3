import RemindCore

/// Where a dispatcher takes its sink's events from: the daemon's durable outbox.
public protocol OutboxSource: Sendable {
    /// The oldest event not yet done for `sink`, without removing it; nil when none.
    func nextEvent(for sink: String) async -> OutboxEvent?
    /// Returns when there may be a new event for `sink`, or when the task is cancelled.
    func waitForEvents(for sink: String) async
    /// `sink` is done with the event: delivered, or given up on.
    func complete(_ eventID: String, sink: String) async
}
