import RemindCore

extension FileStateStore {
    /// Claims the next event `sink` may deliver now; see `Outbox.claim`.
    public func claimEvent(for sink: String) -> OutboxEvent? {
        outbox.claim(sink: sink)
    }

    /// Claims up to `limit` events `sink` may deliver now, in one visit to the actor.
    public func claimEvents(for sink: String, limit: Int) -> [OutboxEvent] {
        outbox.claim(sink: sink, limit: limit)
    }

    /// A claimed event goes back undelivered (the dispatcher is shutting down).
    public func release(_ eventID: String, sink: String) {
        outbox.release(eventID, sink: sink)
        outboxSignals[sink]?.signal()
    }

    /// Waits until the outbox may hold something new for `sink` (or the task is cancelled).
    public nonisolated func waitForEvents(for sink: String) async {
        await outboxSignals[sink]?.wait()
    }

    /// `sink` is done with an event: delivered, or dead-lettered. The acknowledgement is
    /// logged without waiting for the disk: losing it in a crash only means the event is
    /// delivered again, with the same id.
    public func complete(_ eventID: String, sink: String) {
        if finish(eventID, sink: sink) { wal.appendLazily(LogEntry.ack(eventID: eventID, sink: sink).line) }
    }

    /// Takes the event out of the sink's queue; true when it was there.
    private func finish(_ eventID: String, sink: String) -> Bool {
        guard outbox.complete(eventID, sink: sink) else { return false }
        if outbox.entries[eventID] == nil { eventsCompleted += 1 }
        // The user's next event for this sink may have been waiting for this one.
        outboxSignals[sink]?.signal()
        return true
    }

    public func pendingEvents(for sink: String) -> Int { outbox.pending(sink: sink) }

    /// Moves an event a sink gave up on to the dead letters, durably, out of the sink's queue in
    /// the same step (the `dead` line stands for its acknowledgement): a replay that follows at
    /// once finds it gone from the queue and puts it back.
    public func deadLetter(_ letter: DeadLetterRecord) async throws {
        try await logged([LogEntry.dead(letter).line]) {
            deadLetterList.put(letter)
            _ = finish(letter.event.id, sink: letter.sink)
        }
    }

    public func deadLetters() -> [DeadLetterRecord] { deadLetterList.all }

    /// Puts dead letters back in their sinks' queues: all of them, or those whose event id is
    /// in `ids`. Returns how many went back.
    public func replayDeadLetters(ids: Set<String>?) async throws -> Int {
        let chosen = deadLetterList.chosen(ids)
        guard !chosen.isEmpty else { return 0 }
        try await logged(chosen.map { LogEntry.replay(eventID: $0.event.id, sink: $0.sink).line }) {
            for letter in chosen {
                _ = deadLetterList.take(eventID: letter.event.id, sink: letter.sink)
                outbox.requeue(letter.event, sink: letter.sink)
                outboxSignals[letter.sink]?.signal()
            }
        }
        return chosen.count
    }
}
