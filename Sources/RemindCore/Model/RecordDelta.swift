/// A change to a user's record as the write-ahead log keeps it: what the change made, not the
/// whole record (a delta, ARCHITECTURE.md "Glossary").
///
/// The members of a record are small but for its history (up to `historyMaxEntries` entries)
/// and its episodes (up to `closedEpisodesKept` + 1), both newest first; a report that changes a
/// user rewrites the newest of them and leaves the rest. A delta holds every other member whole
/// (so it is exact whatever the previous revision held of them) and, of each list, the new
/// newest elements followed by the range of the previous revision's list that comes after them.
///
/// A delta applies to the revision it was made from and to no other (`applied(to:)`): the
/// kept range is only meaningful there. Replay therefore skips a delta whose revision the
/// user's file already holds (the checkpoint wrote it before the crash) and applies the rest
/// in order.
///
/// The kept ranges never include the newest element of the previous revision: repeats answered
/// from memory (`PendingRepeats`) change only the newest history entry and the small members,
/// so a delta carries them to the log even when the previous revision's file lacks them.
///
/// A new user's first change is a delta from nothing (revision 0): it keeps nothing, and its
/// encoding is then the user file's own bytes, which the checkpoint writes as they are. Every
/// change is logged as a delta, whatever the history's length: the log's line costs what the
/// change did, and the user's file is encoded once per checkpoint however many changes it had.
public struct RecordDelta: Sendable, Equatable {
    /// The record after the change, with only the new newest history entries and episodes.
    public private(set) var partial: UserRecord
    /// The previous revision's history entries that follow `partial.history`.
    public private(set) var keep: Range<Int>
    /// The previous revision's episodes that follow `partial.episodes`.
    public private(set) var episodesKeep: Range<Int>

    public var userID: UserID { partial.userID }
    /// The revision this change made; it applies to `revision - 1`.
    public var revision: Int { partial.revision }

    /// The change from `base` to `record` (whose revision must be the next one); from nothing
    /// (`base` nil) for a user's first record, of revision 1.
    public init(from base: UserRecord?, to record: UserRecord) {
        precondition(
            record.revision == (base?.revision ?? 0) + 1 && (base == nil || record.userID == base?.userID),
            "the next revision")
        let history = Self.split(record.history, after: base?.history ?? [])
        let episodes = Self.split(record.episodes, after: base?.episodes ?? [])
        var partial = record
        partial.history = Array(record.history[..<history.prefix])
        partial.episodes = Array(record.episodes[..<episodes.prefix])
        self.init(partial: partial, keep: history.keep, episodesKeep: episodes.keep)
    }

    init(partial: UserRecord, keep: Range<Int>, episodesKeep: Range<Int>) {
        self.partial = partial
        self.keep = keep
        self.episodesKeep = episodesKeep
    }

    /// Whether the delta keeps nothing of the revision before: its encoding is then the whole
    /// record's, byte for byte (`jsonBytes`).
    public var isWhole: Bool { keep.isEmpty && episodesKeep.isEmpty }

    /// The record after the change, or nil when `base` is not the revision before it (or lacks
    /// the kept ranges: then it is not that revision either).
    ///
    /// Applied to nothing (`base` nil: the user has no record), only a first record follows.
    public func applied(to base: UserRecord?) -> UserRecord? {
        guard let base else { return revision == 1 && isWhole ? partial : nil }
        guard base.revision == revision - 1, base.userID == userID, keep.upperBound <= base.history.count,
            episodesKeep.upperBound <= base.episodes.count
        else { return nil }
        var record = partial
        record.history += base.history[keep]
        record.episodes += base.episodes[episodesKeep]
        return record
    }

    /// Where `new` stops repeating `old`: `new[..<prefix]` is new, and `new[prefix...]` equals
    /// `old[keep]`, a range of `old` after its first element.
    ///
    /// A change inserts or reshapes elements near the newest and may drop the oldest ones
    /// (`historyMaxEntries`, `closedEpisodesKept`), so the common run is found by lining up the
    /// ends of both lists with up to `maxDropped` of the old ones cut; anything else is logged
    /// whole (still exact).
    static func split<Element: Equatable>(_ new: [Element], after old: [Element]) -> (prefix: Int, keep: Range<Int>) {
        var best = (prefix: new.count, keep: 0..<0)
        guard old.count > 1, new.count > 1 else { return best }
        for dropped in 0...min(maxDropped, old.count - 2) {
            let end = old.count - dropped
            // At least the newest element of each stays out of the common run.
            let longest = min(new.count - 1, end - 1)
            var run = 0
            while run < longest && new[new.count - 1 - run] == old[end - 1 - run] { run += 1 }
            if run > best.keep.count { best = (new.count - run, (end - run)..<end) }
            if run == longest { break }
        }
        return best
    }

    /// Old entries a change may drop off the end of the history and still be logged as a delta.
    static let maxDropped = 3

    // MARK: - Log encoding

    /// The partial record in the user file's format, with `historyKeep` and `episodesKeep`
    /// where they keep anything, and then without the top-level `permissions` and `errors` that
    /// the file repeats from the newest history entry for its readers: a delta that keeps
    /// nothing is the record's file, byte for byte.
    public var jsonBytes: [UInt8] { partial.encoded(keep: isWhole ? nil : (keep, episodesKeep)) }

    /// Reads what `jsonBytes` wrote (an absent range keeps nothing); errors name the member.
    public init(object: JSONObject) throws(ValidationError) {
        let partial = try UserRecord(object: object)
        guard partial.revision > 0 else {
            throw ValidationError(field: "revision", reason: "must be at least 1 in a logged change")
        }
        var reader = JSONObjectReader(object)
        self.init(
            partial: partial, keep: try Self.range(&reader, "historyKeep"),
            episodesKeep: try Self.range(&reader, "episodesKeep"))
    }

    private static func range(_ reader: inout JSONObjectReader, _ key: String) throws(ValidationError) -> Range<Int> {
        guard let object = try reader.object(key) else { return 0..<0 }
        var range = JSONObjectReader(object, path: key)
        guard let from = try range.integer("from", in: 0...Int64(Int32.max)),
            let count = try range.integer("count", in: 0...Int64(Int32.max))
        else { throw ValidationError(field: key, reason: "needs from and count") }
        return Int(from)..<Int(from + count)
    }
}
