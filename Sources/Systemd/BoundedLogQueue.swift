/// The log entries waiting for the journal writer: at most `capacity`, and a count of those turned away.
///
/// When journald stops reading, the writer stops taking entries, and a queue without a bound would grow until the
/// daemon runs out of memory; a caller that waited for room would stall the request it logs for. So a full queue
/// drops the new entry and counts it, and the writer reports the count once journald answers again.
struct BoundedLogQueue<Element> {
    let capacity: Int
    private(set) var elements: [Element] = []
    /// Entries dropped since the last ``takeAll()``.
    private(set) var dropped = 0

    init(capacity: Int) {
        precondition(capacity > 0, "a log queue holds at least one entry")
        self.capacity = capacity
    }

    var isEmpty: Bool { elements.isEmpty && dropped == 0 }

    /// Queues `element`; false, and counted as dropped, when the queue is full.
    @discardableResult
    mutating func append(_ element: Element) -> Bool {
        guard elements.count < capacity else {
            dropped += 1
            return false
        }
        elements.append(element)
        return true
    }

    /// Everything queued, oldest first, and how many entries were dropped meanwhile; the queue is then empty and
    /// the count zero.
    mutating func takeAll() -> (elements: [Element], dropped: Int) {
        defer {
            elements = []
            dropped = 0
        }
        return (elements, dropped)
    }
}
