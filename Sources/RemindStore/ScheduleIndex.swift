import Foundation
import HeapModule
import RemindCore

/// Every user's next wake-up, soonest first.
///
/// A min-heap with lazy deletion: a user's wake-up changes by pushing a new entry and
/// recording it in `wakes`; stale entries are skipped when they reach the top. That keeps an
/// update O(log n) without a decrease-key heap.
struct ScheduleIndex {
    struct Entry: Comparable {
        var wake: Date
        var userID: UserID

        static func < (lhs: Entry, rhs: Entry) -> Bool {
            lhs.wake < rhs.wake || (lhs.wake == rhs.wake && lhs.userID < rhs.userID)
        }
    }

    private var heap = Heap<Entry>()
    private(set) var wakes: [UserID: Date] = [:]

    var count: Int { wakes.count }

    mutating func set(_ userID: UserID, wake: Date?) {
        guard wakes[userID] != wake else { return }
        wakes[userID] = wake
        if let wake { heap.insert(Entry(wake: wake, userID: userID)) }
        // Keep stale entries from piling up when wake-ups move often.
        if heap.count > 2 * wakes.count + 1024 { rebuild() }
    }

    var next: Entry? {
        mutating get {
            while let top = heap.min {
                if wakes[top.userID] == top.wake { return top }
                heap.removeMin()
            }
            return nil
        }
    }

    /// Removes and returns up to `limit` users whose wake-up is at or before `now`.
    mutating func popDue(now: Date, limit: Int) -> [UserID] {
        var due: [UserID] = []
        while due.count < limit, let top = next, top.wake <= now {
            heap.removeMin()
            wakes[top.userID] = nil
            due.append(top.userID)
        }
        return due
    }

    mutating func reserveCapacity(_ capacity: Int) {
        wakes.reserveCapacity(capacity)
    }

    mutating func rebuild() {
        heap = Heap(wakes.map { Entry(wake: $0.value, userID: $0.key) })
    }

    mutating func removeAll() {
        heap = Heap()
        wakes = [:]
    }
}
