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
        /// Sinks that get other bytes under the same id: the fallback sinks of a reminder a
        /// push sink handed over (docs/fallback.md), which names its channel anew.
        var variants: [String: OutboxEvent] = [:]

        /// The event as `sink` gets it.
        func event(for sink: String) -> OutboxEvent { variants[sink] ?? event }

        /// The pending sinks grouped by the bytes they get: what the snapshot and an export
        /// write, one line each (read back, the second joins the first as `enqueue` says).
        var groups: [Routed] {
            let plain = remaining.filter { variants[$0] == nil }
            var groups: [Routed] = plain.isEmpty ? [] : [(event, plain.sorted())]
            var byBytes: [[UInt8]: Routed] = [:]
            for sink in remaining.sorted() {
                guard let variant = variants[sink] else { continue }
                byBytes[variant.bytes, default: (variant, [])].sinks.append(sink)
            }
            groups += byBytes.values.sorted { $0.sinks[0] < $1.sinks[0] }
            return groups
        }
    }

    private(set) var entries: [String: Entry] = [:]
    private var queues: SinkQueues
    private var nextSequence: UInt64 = 0

    /// An event with the sinks it goes to.
    typealias Routed = (event: OutboxEvent, sinks: [String])

    init(sinks: [String]) {
        queues = SinkQueues(sinks: sinks)
    }

    var sinks: [String] { queues.names }

    /// Adds an event for `sinks` (those configured; others are ignored). An id already
    /// pending is not added twice: replay and snapshot may both hold it. The one exception is
    /// the same id with other bytes, a reminder a push sink could not deliver that now goes to
    /// the fallback sinks (docs/fallback.md): those sinks join the pending entry and get these
    /// bytes; its other sinks keep theirs. Replayed again it is found, and not added twice.
    mutating func enqueue(_ event: OutboxEvent, sinks: some Sequence<String>) {
        if let entry = entries[event.id] {
            guard entry.event.bytes != event.bytes, !entry.variants.values.contains(where: { $0.bytes == event.bytes })
            else { return }
            for sink in sinks { requeue(event, sink: sink) }
            return
        }
        var slots: [String: SinkQueues.Slot] = [:]
        for sink in sinks { slots[sink] = queues.slot(sink) }
        guard !slots.isEmpty else { return }
        entries[event.id] = Entry(event: event, remaining: Set(slots.keys), sequence: nextSequence)
        nextSequence += 1
        for slot in slots.values {
            queues[slot].ids.append(event.id)
            queues[slot].pending += 1
        }
    }

    /// Puts an event back in front of one sink (a replayed dead letter), whether or not it is
    /// still pending for others; the sink gets these bytes, whatever the others get.
    mutating func requeue(_ event: OutboxEvent, sink: String) {
        guard let slot = queues.slot(sink) else { return }
        if var entry = entries[event.id] {
            guard entry.remaining.insert(sink).inserted else { return }
            if entry.event.bytes != event.bytes { entry.variants[sink] = event }
            entries[event.id] = entry
        } else {
            entries[event.id] = Entry(event: event, remaining: [sink], sequence: nextSequence)
            nextSequence += 1
        }
        queues[slot].ids.append(event.id)
        queues[slot].pending += 1
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
        guard let slot = queues.slot(sink) else { return [] }
        dropFinished(slot, sink: sink)
        guard limit > 0 else { return [] }
        var held = queues[slot].claimed
        // Users with an earlier event in the sink's hands: their later ones wait.
        var blocked: Set<UserID> = []
        var events: [OutboxEvent] = []
        for id in queues[slot].ids {
            guard let entry = entries[id], entry.remaining.contains(sink) else { continue }
            let userID = entry.event.userID
            if held.contains(id) {
                blocked.insert(userID)
                continue
            }
            guard blocked.insert(userID).inserted else { continue }
            held.insert(id)
            events.append(entry.event(for: sink))
            if events.count == limit { break }
        }
        queues[slot].claimed = held
        return events
    }

    /// Gives back a claimed event that was not delivered; it stays pending, first in line.
    mutating func release(_ id: String, sink: String) {
        guard let slot = queues.slot(sink) else { return }
        queues[slot].claimed.remove(id)
    }

    /// Removes events the sink is done with from the front of its queue.
    private mutating func dropFinished(_ slot: SinkQueues.Slot, sink: String) {
        while let id = queues[slot].ids.first {
            if let entry = entries[id], entry.remaining.contains(sink) { return }
            queues[slot].ids.removeFirst()
        }
    }

    /// `sink` is done with the event (delivered, or given up on); returns true when it was
    /// pending for that sink.
    @discardableResult
    mutating func complete(_ id: String, sink: String) -> Bool {
        guard let slot = queues.slot(sink) else { return false }
        queues[slot].claimed.remove(id)
        guard var entry = entries[id], entry.remaining.remove(sink) != nil else { return false }
        entry.variants[sink] = nil
        queues[slot].pending -= 1
        if queues[slot].ids.first == id { queues[slot].ids.removeFirst() }
        entries[id] = entry.remaining.isEmpty ? nil : entry
        return true
    }

    func pending(sink: String) -> Int { queues.slot(sink).map { queues[$0].pending } ?? 0 }

    /// Entries in creation order, for the snapshot.
    var ordered: [Entry] { entries.values.sorted { $0.sequence < $1.sequence } }

    /// Every pending event with the sinks it waits for, in creation order, one line per
    /// distinct bytes (`Entry.groups`): what a snapshot writes.
    var pendingGroups: [Routed] { ordered.flatMap(\.groups) }
}
