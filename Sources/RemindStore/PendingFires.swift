import RemindCore

/// Fired changes (`FiredChange`) that are durable in the log but not yet in their users'
/// files: what the scheduler did to users it fired from their schedule rows, without reading
/// their files. A checkpoint folds them into the files, the longest-waiting users
/// first and a bounded number at a time (`FileStateStore.foldPending`); a snapshot logs them
/// again in the segment it keeps, since the segments it deletes held them.
///
/// A user's changes are `inRecord` once they were applied to the record in memory (the
/// record is then dirty and carries them); they stay here until that record is written, so a
/// snapshot taken meanwhile still logs them.
struct PendingFires {
    private struct Entry {
        var changes: [FiredChange]
        var inRecord = false
    }

    private var entries: [UserID: Entry] = [:]
    /// The users whose record in memory carries their changes (once it is written, they can
    /// go), so that a checkpoint need not visit every entry.
    private(set) var inRecordUsers: Set<UserID> = []
    /// Users in the order their first pending change came (may hold users no longer pending).
    private var order: [UserID] = []
    private var orderStart = 0

    var count: Int { entries.count }

    var isEmpty: Bool { entries.isEmpty }

    /// A change fired from the user's schedule row: their record is not in memory (else it would
    /// have been fired from the record), so no pending change of theirs is in a record either.
    mutating func add(_ change: FiredChange) {
        assert(entries[change.userID]?.inRecord != true, "fired from the row while the record is in memory")
        if entries[change.userID]?.changes.append(change) == nil {
            entries[change.userID] = Entry(changes: [change])
            order.append(change.userID)
        }
    }

    /// The user's changes not yet applied to their record in memory.
    func unapplied(_ userID: UserID) -> [FiredChange]? {
        guard let entry = entries[userID], !entry.inRecord else { return nil }
        return entry.changes
    }

    /// The user's record in memory now carries their changes.
    mutating func markInRecord(_ userID: UserID) {
        guard entries[userID] != nil else { return }
        entries[userID]?.inRecord = true
        inRecordUsers.insert(userID)
    }

    /// The user's file now holds their changes, or the user is gone.
    mutating func remove(_ userID: UserID) {
        if entries.removeValue(forKey: userID)?.inRecord == true { inRecordUsers.remove(userID) }
    }

    /// Up to `limit` users whose changes are in no record yet, longest waiting first.
    mutating func oldestUnapplied(limit: Int) -> [UserID] {
        var taken: [UserID] = []
        var seen = Set<UserID>()
        var index = orderStart
        while index < order.count && taken.count < limit {
            let userID = order[index]
            if let entry = entries[userID], !entry.inRecord, seen.insert(userID).inserted { taken.append(userID) }
            index += 1
        }
        // The users passed over are pending no more, or carried by their record: a later
        // change of theirs comes back to the end of the line.
        orderStart = index
        if orderStart > 4096 && orderStart * 2 > order.count {
            order.removeFirst(orderStart)
            orderStart = 0
        }
        return taken
    }

    /// Puts users a fold did not reach back at the front of the line.
    mutating func returnUnfolded(_ userIDs: [UserID]) {
        let pending = userIDs.filter { entries[$0] != nil }
        guard !pending.isEmpty else { return }
        order.replaceSubrange(orderStart..<orderStart, with: pending)
    }

    /// Every pending change, for a snapshot to log again.
    var all: [FiredChange] { entries.values.flatMap(\.changes) }
}
