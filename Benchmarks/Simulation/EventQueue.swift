/// The simulated clock's agenda: events in time order (ties in the order they were added).
struct EventQueue {
    enum Kind: UInt8 {
        /// An app launch with Always access: only the activity histogram moves.
        case launch
        /// The report without Always access that opens the user's episode.
        case open
        /// The policy's next wake-up for the user.
        case wake
        /// The report with Always access that resolves the episode.
        case resolve
        /// The user opens the reminder: the app reports (and gets an ask), then what the user
        /// did with it.
        case appOpen
    }

    struct Event {
        var time: Double
        var order: Int
        var user: Int32
        var kind: Kind
    }

    private var heap: [Event] = []
    private var added = 0

    var isEmpty: Bool { heap.isEmpty }

    mutating func add(_ time: Double, user: Int, _ kind: Kind) {
        added += 1
        heap.append(Event(time: time, order: added, user: Int32(user), kind: kind))
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard Self.before(heap[child], heap[parent]) else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    mutating func next() -> Event? {
        guard let first = heap.first else { return nil }
        let last = heap.removeLast()
        if !heap.isEmpty {
            heap[0] = last
            var parent = 0
            while true {
                let left = 2 * parent + 1
                let right = left + 1
                var smallest = parent
                if left < heap.count && Self.before(heap[left], heap[smallest]) { smallest = left }
                if right < heap.count && Self.before(heap[right], heap[smallest]) { smallest = right }
                if smallest == parent { break }
                heap.swapAt(parent, smallest)
                parent = smallest
            }
        }
        return first
    }

    var peekTime: Double? { heap.first?.time }

    private static func before(_ a: Event, _ b: Event) -> Bool { (a.time, a.order) < (b.time, b.order) }
}
