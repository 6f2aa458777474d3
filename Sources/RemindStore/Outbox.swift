import DequeModule
import RemindCore

/// Events not yet acknowledged by every sink, in the order they were created, with a queue
/// per sink so that one slow sink never holds back another.
///
/// Pure bookkeeping: durability comes from the write-ahead log (an event enters in the same
/// entry as the record change that produced it; acknowledgements are logged) and the snapshot.
struct Outbox {
    struct Entry {
        var event: OutboxEvent
        /// Sinks that have not acknowledged it yet.
        var remaining: Set<String>
        /// Creation order, kept across restarts so each sink sees events in order.
        var sequence: UInt64
    }

    private(set) var entries: [String: Entry] = [:]
    private var queues: [String: Deque<String>] = [:]
    private var nextSequence: UInt64 = 0

    init(sinks: [String]) {
        for sink in sinks { queues[sink] = [] }
    }

    var sinks: [String] { Array(queues.keys) }

    /// Adds an event for `sinks` (those configured; others are ignored). An id already
    /// pending is not added twice: replay and snapshot may both hold it.
    mutating func enqueue(_ event: OutboxEvent, sinks: some Sequence<String>) {
        guard entries[event.id] == nil else { return }
        let remaining = Set(sinks.filter { queues[$0] != nil })
        guard !remaining.isEmpty else { return }
        entries[event.id] = Entry(event: event, remaining: remaining, sequence: nextSequence)
        nextSequence += 1
        for sink in remaining { queues[sink]!.append(event.id) }
    }

    /// Puts an event back in front of one sink (a replayed dead letter), whether or not it is
    /// still pending for others.
    mutating func requeue(_ event: OutboxEvent, sink: String) {
        guard queues[sink] != nil else { return }
        if var entry = entries[event.id] {
            guard entry.remaining.insert(sink).inserted else { return }
            entries[event.id] = entry
        } else {
            entries[event.id] = Entry(event: event, remaining: [sink], sequence: nextSequence)
            nextSequence += 1
        }
        queues[sink]!.append(event.id)
    }

    /// The oldest event still waiting for `sink`, without removing it.
    mutating func peek(sink: String) -> OutboxEvent? {
        while let id = queues[sink]?.first {
            if let entry = entries[id], entry.remaining.contains(sink) { return entry.event }
            queues[sink]!.removeFirst()
        }
        return nil
    }

    /// `sink` is done with the event (delivered, or given up on); returns true when it was
    /// pending for that sink.
    @discardableResult
    mutating func complete(_ id: String, sink: String) -> Bool {
        guard var entry = entries[id], entry.remaining.remove(sink) != nil else { return false }
        if queues[sink]?.first == id { queues[sink]!.removeFirst() }
        entries[id] = entry.remaining.isEmpty ? nil : entry
        return true
    }

    func pending(sink: String) -> Int {
        entries.values.reduce(0) { $0 + ($1.remaining.contains(sink) ? 1 : 0) }
    }

    /// Entries in creation order, for the snapshot.
    var ordered: [Entry] { entries.values.sorted { $0.sequence < $1.sequence } }
}
