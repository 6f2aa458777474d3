import Foundation
import HeapModule
import RemindCore

/// Every user's next wake-up, soonest first: a min-heap over the wake-ups `PackedSchedules`
/// keeps in its rows.
///
/// Deletion is lazy: a user's wake-up changes by pushing a new entry and storing the wake-up in
/// the table; an entry the table no longer confirms is skipped when it reaches the top. That
/// keeps an update O(log n) without a decrease-key heap, and the table is the one place that
/// says what a user's wake-up is.
struct WakeUpHeap {
    struct Entry: Comparable {
        var wake: Date
        var userID: UserID

        static func < (lhs: Entry, rhs: Entry) -> Bool {
            lhs.wake < rhs.wake || (lhs.wake == rhs.wake && lhs.userID < rhs.userID)
        }
    }

    private var heap = Heap<Entry>()

    /// Entries, stale ones included.
    var entries: Int { heap.count }

    mutating func push(_ userID: UserID, wake: Date) {
        heap.insert(Entry(wake: wake, userID: userID))
    }

    /// The soonest entry `table` confirms; stale ones on the way are dropped.
    mutating func next(in table: PackedSchedules) -> Entry? {
        while let top = heap.min {
            if table.wake(of: top.userID) == top.wake { return top }
            heap.removeMin()
        }
        return nil
    }

    /// Removes and returns up to `limit` users whose wake-up is at or before `now`, clearing
    /// their wake-ups in `table`.
    mutating func popDue(now: Date, limit: Int, in table: inout PackedSchedules) -> [UserID] {
        var due: [UserID] = []
        while due.count < limit, let top = next(in: table), top.wake <= now {
            heap.removeMin()
            table.setWake(nil, of: top.userID)
            due.append(top.userID)
        }
        return due
    }

    /// The heap of the table's wake-ups, built at once (O(n)), without stale entries.
    mutating func rebuild(from table: PackedSchedules) {
        var entries: [Entry] = []
        entries.reserveCapacity(table.count)
        table.forEachWake { entries.append(Entry(wake: $1, userID: $0)) }
        heap = Heap(entries)
    }
}
