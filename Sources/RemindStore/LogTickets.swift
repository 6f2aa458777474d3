/// Appends to the write-ahead log that are begun but not yet applied in memory, by ticket.
///
/// A checkpoint that is about to snapshot and delete log segments first waits for every
/// append begun before its rotation (`waitUntilApplied`), so it never snapshots around a
/// change that is durable in a segment it deletes but not yet in memory.
struct LogTickets {
    private(set) var latest: UInt64 = 0
    private var inFlight: Set<UInt64> = []
    private var waiters: [(ticket: UInt64, continuation: CheckedContinuation<Void, Never>)] = []

    /// A ticket for an append about to start.
    mutating func begin() -> UInt64 {
        latest += 1
        inFlight.insert(latest)
        return latest
    }

    /// The append of `ticket` was applied (or failed): resumes whoever waited for it.
    mutating func end(_ ticket: UInt64) {
        inFlight.remove(ticket)
        let oldest = inFlight.min() ?? UInt64.max
        waiters.removeAll { waiter in
            guard waiter.ticket < oldest else { return false }
            waiter.continuation.resume()
            return true
        }
    }

    /// True when every append up to `ticket` is applied.
    func applied(upTo ticket: UInt64) -> Bool {
        guard let oldest = inFlight.min() else { return true }
        return oldest > ticket
    }

    /// Resumes `continuation` once every append up to `ticket` is applied.
    mutating func waitUntilApplied(upTo ticket: UInt64, _ continuation: CheckedContinuation<Void, Never>) {
        waiters.append((ticket, continuation))
    }
}
