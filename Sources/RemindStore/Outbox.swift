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
    /// Events a sink's dispatcher holds right now (claimed, not yet completed or released).
    private var claimed: [String: Set<String>] = [:]
    private var nextSequence: UInt64 = 0
    /// Events pending per sink, kept as they come and go (status asks often).
    private var pendingCounts: [String: Int] = [:]

    init(sinks: [String]) {
        for sink in sinks {
            queues[sink] = []
            pendingCounts[sink] = 0
        }
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
        for sink in remaining {
            queues[sink]!.append(event.id)
            pendingCounts[sink]! += 1
        }
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
        pendingCounts[sink]! += 1
    }

    /// Claims the oldest event for `sink` that is not claimed already and has no earlier
    /// unfinished event of the same user in the sink's queue: concurrent deliveries never
    /// reorder one user's events.
    mutating func claim(sink: String) -> OutboxEvent? {
        claim(sink: sink, limit: 1).first
    }

    /// Claims up to `limit` events at once, by the rule of `claim(sink:)`. One pass over the
    /// events already in the sink's hands serves them all: claiming one at a time walked past
    /// every in-flight event each time (a tenth of the daemon's CPU firing 100,000 reminders).
    mutating func claim(sink: String, limit: Int) -> [OutboxEvent] {
        dropFinished(sink: sink)
        guard limit > 0, let queue = queues[sink] else { return [] }
        var held = claimed[sink, default: []]
        // Users with an earlier event in the sink's hands: their later ones wait.
        var blocked: Set<UserID> = []
        var events: [OutboxEvent] = []
        for id in queue {
            guard let entry = entries[id], entry.remaining.contains(sink) else { continue }
            let userID = entry.event.userID
            if held.contains(id) {
                blocked.insert(userID)
                continue
            }
            guard blocked.insert(userID).inserted else { continue }
            held.insert(id)
            events.append(entry.event)
            if events.count == limit { break }
        }
        claimed[sink] = held
        return events
    }

    /// Gives back a claimed event that was not delivered; it stays pending, first in line.
    mutating func release(_ id: String, sink: String) {
        claimed[sink]?.remove(id)
    }

    /// Removes events the sink is done with from the front of its queue.
    private mutating func dropFinished(sink: String) {
        while let id = queues[sink]?.first {
            if let entry = entries[id], entry.remaining.contains(sink) { return }
            queues[sink]!.removeFirst()
        }
    }

    /// `sink` is done with the event (delivered, or given up on); returns true when it was
    /// pending for that sink.
    @discardableResult
    mutating func complete(_ id: String, sink: String) -> Bool {
        claimed[sink]?.remove(id)
        guard var entry = entries[id], entry.remaining.remove(sink) != nil else { return false }
        pendingCounts[sink]! -= 1
        if queues[sink]?.first == id { queues[sink]!.removeFirst() }
        entries[id] = entry.remaining.isEmpty ? nil : entry
        return true
    }

    func pending(sink: String) -> Int { pendingCounts[sink] ?? 0 }

    /// Entries in creation order, for the snapshot.
    var ordered: [Entry] { entries.values.sorted { $0.sequence < $1.sequence } }
}
