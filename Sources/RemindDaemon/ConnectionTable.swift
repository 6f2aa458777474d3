import NIOCore

/// Which connections of a listener to close when it is at its connection cap: the policy of
/// ``ConnectionGuard``, with no I/O.
///
/// A cap that only stops accepting lets idle clients starve real ones: 1,024 connections that
/// never send a request head (a leaking client pool, a slowloris) would hold every slot, and a
/// real client would wait in the kernel's backlog until a timeout frees one. So at the cap a new
/// connection is still accepted, and the connection that has waited longest for a request head
/// is closed to make room. Connections busy with a request are never closed for room; only when
/// every slot is busy does the listener stop accepting, and new clients wait in the backlog.
struct ConnectionTable<ID: Hashable & Sendable>: Sendable {
    let capacity: Int
    /// Connections accepted and not yet closed, including those not registered yet.
    private(set) var accepted = 0
    /// Registered connections: since when each waits for a request head, nil while it is busy.
    private var connections: [ID: NIODeadline?] = [:]
    /// Connections told to close for room that have not closed yet.
    private var evicting: Set<ID> = []

    init(capacity: Int) {
        precondition(capacity > 0)
        self.capacity = capacity
    }

    /// Whether the listener should accept another connection: there is a free slot, or one can
    /// be made. Connections accepted but not registered yet are about to wait for their head, so
    /// they count as room too, or a burst of new clients would stop the listener until a timeout.
    var isAccepting: Bool {
        accepted - evicting.count < capacity || hasEvictable || accepted > connections.count
    }

    /// A connection was accepted; returns the connections to close to stay within the cap,
    /// those waiting longest for a request head first.
    mutating func accept() -> [ID] {
        accepted += 1
        var evicted: [ID] = []
        while accepted - evicting.count > capacity, let oldest = oldestAwaitingHead() {
            evicting.insert(oldest)
            evicted.append(oldest)
        }
        return evicted
    }

    /// A connection's state: waiting for a request head since `since`, or busy (nil).
    mutating func update(_ id: ID, awaitingHeadSince since: NIODeadline?) {
        guard !evicting.contains(id) else { return }
        connections[id] = .some(since)
    }

    /// A registered connection closed.
    mutating func remove(_ id: ID) {
        connections[id] = nil
        evicting.remove(id)
    }

    /// An accepted connection closed (registered or not).
    mutating func closed() {
        accepted -= 1
    }

    private var hasEvictable: Bool {
        connections.contains { $0.value != nil && !evicting.contains($0.key) }
    }

    private func oldestAwaitingHead() -> ID? {
        var oldest: (id: ID, since: NIODeadline)?
        for (id, since) in connections {
            guard let since, !evicting.contains(id) else { continue }
            if oldest.map({ since < $0.since }) ?? true { oldest = (id, since) }
        }
        return oldest?.id
    }
}
