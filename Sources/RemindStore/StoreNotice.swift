/// Something the store did on its own that an operator should hear about. The store does
/// not log (library code throws; the program logs once): the daemon turns these into
/// journald entries.
public enum StoreNotice: Sendable, Equatable {
    /// A user file could not be read and was moved aside.
    case quarantined(path: String, movedTo: String, reason: String)
    /// Temp files from an interrupted write were removed at start-up.
    case clearedTemporaryFiles(count: Int)
    /// The write-ahead log ended in an incomplete (never acknowledged) batch, cut off.
    case cutTornLogTail(bytes: Int)
    /// No usable snapshot: every user file was read.
    case scannedAllFiles(users: Int)
    /// A snapshot file or log segment failed its checksum or did not decode: it was kept in
    /// `quarantine/` (at `movedTo`) and `consequence` says what start-up did instead.
    case damagedFile(path: String, movedTo: String, reason: String, consequence: String)
    /// A checkpoint failed; it is retried, and the log keeps everything meanwhile.
    case checkpointFailed(String)
}

/// What start-up found.
public struct OpenSummary: Sendable, Equatable {
    public var users: Int
    public var fromSnapshot: Bool
    public var replayedEntries: Int
    public var pendingEvents: Int
}
