import DequeModule

/// One sink's share of the outbox.
struct SinkQueue {
    /// Event ids in creation order; those the sink is done with leave from the front.
    var ids: Deque<String> = []
    /// Events the sink's dispatcher holds right now (claimed, not yet completed or released).
    var claimed: Set<String> = []
    /// Events pending, kept as they come and go (status asks often).
    var pending = 0
}

/// Every configured sink's queue. The sinks are fixed when the outbox is made, and a `Slot`
/// comes only from looking a configured sink up, so reading or changing a queue through one
/// cannot miss: a sink that is not configured is turned away once, at the lookup.
struct SinkQueues {
    struct Slot {
        fileprivate let index: Int
    }

    /// The configured sinks, in the order given (each once).
    let names: [String]
    private let slots: [String: Int]
    private var queues: [SinkQueue]

    init(sinks: [String]) {
        var names: [String] = []
        var slots: [String: Int] = [:]
        for sink in sinks where slots[sink] == nil {
            slots[sink] = names.count
            names.append(sink)
        }
        self.names = names
        self.slots = slots
        queues = Array(repeating: SinkQueue(), count: names.count)
    }

    /// The slot of `sink`, or nil when it is not configured.
    func slot(_ sink: String) -> Slot? {
        slots[sink].map(Slot.init(index:))
    }

    subscript(slot: Slot) -> SinkQueue {
        get { queues[slot.index] }
        // In place: a queue is not copied to append to it.
        _modify { yield &queues[slot.index] }
    }
}
