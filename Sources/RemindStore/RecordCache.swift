import RemindCore

/// Users' records held in memory: every record changed since its file was written (dirty),
/// and up to `capacity` clean ones read from files, the rest evicted.
///
/// A dirty record carries a version, so a checkpoint can tell whether the record changed
/// again while it was being written, and may carry its encoding: the log line of its change
/// held these bytes, and the checkpoint writes them to the file instead of encoding again.
struct RecordCache {
    let capacity: Int
    private var records: [UserID: UserRecord] = [:]
    private var dirty: [UserID: UInt64] = [:]
    private var encoded: [UserID: [UInt8]] = [:]
    /// Dirty users whose file was never written: a new user's first record.
    private var fresh = Set<UserID>()
    private var version: UInt64 = 0

    /// A dirty record ready to be written, as of `version`.
    struct Pending {
        var record: UserRecord
        var version: UInt64
        var json: [UInt8]?
        /// No file of the user's exists yet: the checkpoint renames theirs into place.
        var fresh: Bool
    }

    init(capacity: Int) {
        self.capacity = capacity
    }

    subscript(userID: UserID) -> UserRecord? { records[userID] }

    var dirtyCount: Int { dirty.count }

    /// Whether the user's record in memory is newer than their file.
    func isDirty(_ userID: UserID) -> Bool { dirty[userID] != nil }

    /// A record as read from its file: clean, evictable.
    mutating func adopt(_ record: UserRecord) {
        records[record.userID] = record
    }

    /// A record newer than its file (a durable change, or one replayed from the log).
    mutating func install(_ record: UserRecord, encoded json: [UInt8]? = nil) {
        // A first revision not read from a file (a known user's record is in memory before
        // their change) has none yet.
        if record.revision == 1 && records[record.userID] == nil { fresh.insert(record.userID) }
        version += 1
        records[record.userID] = record
        dirty[record.userID] = version
        encoded[record.userID] = json
    }

    mutating func remove(_ userID: UserID) {
        fresh.remove(userID)
        records[userID] = nil
        dirty[userID] = nil
        encoded[userID] = nil
    }

    /// Every dirty record, for a checkpoint.
    var pending: [Pending] {
        dirty.compactMap { userID, version in
            records[userID].map {
                Pending(record: $0, version: version, json: encoded[userID], fresh: fresh.contains(userID))
            }
        }
    }

    /// The records of `written` are on disk: each is clean unless it changed meanwhile.
    mutating func markWritten(_ written: [Pending]) {
        for entry in written {
            // Written: the next write swaps with the file, changed meanwhile or not.
            fresh.remove(entry.record.userID)
        }
        for entry in written where dirty[entry.record.userID] == entry.version {
            dirty[entry.record.userID] = nil
            encoded[entry.record.userID] = nil
        }
    }

    /// Drops clean records beyond the capacity (to nine tenths of it, so that eviction is not
    /// paid on every insert), never one that `keep` holds on to.
    mutating func evictIfNeeded(keeping keep: (UserID) -> Bool) {
        guard records.count > capacity + dirty.count else { return }
        var excess = records.count - dirty.count - capacity * 9 / 10
        for userID in records.keys where excess > 0 && dirty[userID] == nil && !keep(userID) {
            records[userID] = nil
            excess -= 1
        }
    }
}
