import RemindCore

/// What `remindd_history` holds of one user: the history entries older than the newest, which
/// the user's document keeps (docs/operations.md "Tables").
///
/// A change rewrites the document and only the rows of this table that it changes: a report
/// that adds an entry inserts the entry it pushed out of the document, and one that goes past
/// `historyMaxEntries` deletes the oldest. No row is ever updated, and a user with a thousand
/// entries is not rewritten whole per change.
///
/// A row's position orders the entries, newest highest; positions may have gaps. New entries
/// go above the highest, so the rows a change deletes and those it inserts never share a key,
/// whatever order one statement runs them in.
struct OlderHistory: Sendable, Equatable {
    /// Newest first, as in the record.
    var entries: [HistoryEntry]
    /// Each entry's row position, descending.
    var positions: [Int64]

    static let empty = OlderHistory(entries: [], positions: [])

    /// The rows that turn this into `newer` (the older entries of the record after a change).
    ///
    /// The rows kept are the longest run of these entries that ends `newer`; the entries of
    /// `newer` before that run are inserted above the highest position, and the rows not in the
    /// run deleted. A report keeps every row and inserts one; a repeat writes none; one placed
    /// among the older entries rewrites those newer than it. When no run lines up, every row
    /// goes and `newer` is inserted whole: still exact, only dearer.
    func change(to newer: ArraySlice<HistoryEntry>) -> Change {
        let kept = Self.longestRun(endingWith: newer, in: entries)
        let added = newer.count - kept.count
        let top = positions.first ?? 0
        let inserted = newer.prefix(added).enumerated().map { offset, entry in
            (position: top + Int64(added - offset), entry: entry)
        }
        return Change(deleted: Array(positions[..<kept.lowerBound] + positions[kept.upperBound...]), inserted: inserted)
    }

    /// The range of `older` that equals the longest run ending `newer` (empty for none).
    private static func longestRun(
        endingWith newer: ArraySlice<HistoryEntry>, in older: [HistoryEntry]
    ) -> Range<Int> {
        guard let last = newer.last else { return older.endIndex..<older.endIndex }
        var best = older.endIndex..<older.endIndex
        // Usually the oldest entry is the same (a report) or a few were dropped past the
        // history's length, so the search starts from the end.
        for end in stride(from: older.count, to: 0, by: -1) where older[end - 1] == last {
            var length = 1
            while length < min(end, newer.count)
                && older[end - 1 - length] == newer[newer.endIndex - 1 - length]
            {
                length += 1
            }
            if length > best.count { best = (end - length)..<end }
            if length == newer.count { break }
        }
        return best
    }

    /// A user's rows to write: those at `deleted` go, `inserted` come.
    struct Change: Sendable {
        var deleted: [Int64]
        var inserted: [(position: Int64, entry: HistoryEntry)]
    }
}
