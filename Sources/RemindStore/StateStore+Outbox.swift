import RemindCore

extension StateStore {
    /// The oldest event waiting for `sink`, or nil if none; see `waitForEvents`.
    public func nextEvent(for sink: String) -> OutboxEvent? {
        outbox.peek(sink: sink)
    }

    /// Waits until the outbox may hold something new for `sink` (or the task is cancelled).
    public nonisolated func waitForEvents(for sink: String) async {
        await outboxSignals[sink]?.wait()
    }

    /// `sink` is done with an event: delivered, or dead-lettered. The acknowledgement is
    /// logged without waiting for the disk: losing it in a crash only means the event is
    /// delivered again, with the same id.
    public func complete(_ eventID: String, sink: String) {
        if outbox.complete(eventID, sink: sink) {
            wal.appendLazily(LogEntry.ack(eventID: eventID, sink: sink).line)
            if outbox.entries[eventID] == nil { eventsCompleted += 1 }
        }
    }

    public func pendingEvents(for sink: String) -> Int { outbox.pending(sink: sink) }
}
