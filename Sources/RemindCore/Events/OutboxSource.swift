/// Where a dispatcher takes its sink's events from: the daemon's durable outbox. Declared here,
/// beside `OutboxEvent`, because both sides use it: every `StateStore` is one (RemindStore),
/// and a `SinkDispatcher` drains one (RemindSinks).
///
/// Implementation requirements:
/// - `claimEvent` hands out the oldest event that is neither claimed nor queued behind an
///   unfinished event of the same user, so a user's events reach a sink in order however many
///   are delivered at once.
/// - Every claimed event is later either completed or released.
/// - `waitForEvents` returns after an event is added or completed for the sink (a completion
///   may unblock that user's next event), or when the task is cancelled.
public protocol OutboxSource: Sendable {
    /// Claims the next deliverable event for `sink`; nil when there is none right now.
    func claimEvent(for sink: String) async -> OutboxEvent?
    /// Claims up to `limit` deliverable events at once (by the rule of `claimEvent`); empty
    /// when there is none right now.
    func claimEvents(for sink: String, limit: Int) async -> [OutboxEvent]
    /// Returns when there may be a new deliverable event for `sink`, or when cancelled.
    func waitForEvents(for sink: String) async
    /// `sink` is done with the event: delivered, or given up on.
    func complete(_ eventID: String, sink: String) async
    /// Gives a claimed event back undelivered (shutdown interrupted it); it stays pending.
    func release(_ eventID: String, sink: String) async
}

extension OutboxSource {
    /// One at a time, for sources without a cheaper way.
    public func claimEvents(for sink: String, limit: Int) async -> [OutboxEvent] {
        var events: [OutboxEvent] = []
        while events.count < limit, let event = await claimEvent(for: sink) { events.append(event) }
        return events
    }
}
