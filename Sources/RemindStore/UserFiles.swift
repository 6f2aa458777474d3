import Foundation
import RemindCore

#if canImport(Glibc)
    import Glibc
#endif

/// The per-user JSON files: `users/<2 hex>/<2 hex>/<encoded id>.json`, sharded by a stable
/// hash of the ID so no directory grows past a few thousand entries.
///
/// Temp files live in `tmp/` at the top of the state directory (same file system, so rename
/// is atomic) and are cleared at start-up, so a crash mid-write leaves nothing in `users/`.
public struct UserFiles: Sendable {
    static let usersDirectoryName = "users"

    public let directory: String
    /// The shard directories known to exist.
    let shards = ShardDirectories()
    var usersDirectory: String { directory + "/" + Self.usersDirectoryName }
    var temporaryDirectory: String { directory + "/tmp" }
    public var quarantineDirectory: String { directory + "/quarantine" }

    public init(directory: String) {
        self.directory = directory
    }

    /// Creates the layout and clears temp files left by a crash; returns how many were cleared.
    func prepare() throws(StoreError) -> Int {
        for path in [usersDirectory, temporaryDirectory, quarantineDirectory] {
            try FileIO.makeDirectories(path)
        }
        let leftovers = FileIO.list(temporaryDirectory)
        for name in leftovers { unlink(temporaryDirectory + "/" + name) }
        for first in FileIO.list(usersDirectory) {
            for second in FileIO.list("\(usersDirectory)/\(first)") {
                if let index = ShardDirectories.index(first, second) { shards.insert(index) }
            }
        }
        return leftovers.count
    }

    /// Makes the shard directory of `userID`'s file unless it is known to exist: once per shard.
    func makeShard(of userID: UserID) throws(StoreError) {
        let index = userID.shardIndex
        guard !shards.contains(index) else { return }
        let (first, second) = userID.shard
        for path in ["\(usersDirectory)/\(first)", "\(usersDirectory)/\(first)/\(second)"]
        where mkdir(path, 0o750) != 0 && errno != EEXIST {
            throw .io("mkdir", path)
        }
        shards.insert(index)
    }

    public func path(for userID: UserID) -> String {
        let (first, second) = userID.shard
        return "\(usersDirectory)/\(first)/\(second)/\(userID.fileName)"
    }

    /// Writes the record's file. Not fsync'd: the write-ahead log holds the record until a
    /// checkpoint syncs the file system.
    func write(_ record: UserRecord, durable: Bool = false) throws(StoreError) {
        let path = path(for: record.userID)
        let (first, second) = record.userID.shard
        let temporary = "\(temporaryDirectory)/\(first)\(second)-\(record.userID.fileName).tmp"
        do {
            try FileIO.replaceFile(path, with: record.jsonBytes, temporaryPath: temporary, durable: durable)
        } catch let error where !error.isDiskFull && FileIO.exists(path) == false {
            // The shard directories are created on first use.
            shards.remove(record.userID.shardIndex)
            try makeShard(of: record.userID)
            try FileIO.replaceFile(path, with: record.jsonBytes, temporaryPath: temporary, durable: durable)
        }
    }

    func remove(_ userID: UserID) throws(StoreError) {
        let path = path(for: userID)
        if unlink(path) != 0 && errno != ENOENT { throw .io("unlink", path) }
    }

    /// What reading a user's file gave.
    enum ReadResult: Sendable {
        case missing
        case record(UserRecord)
        /// The file could not be decoded and was moved to `quarantine/` at `movedTo`.
        case quarantined(movedTo: String, reason: String)
    }

    func read(_ userID: UserID) throws(StoreError) -> ReadResult {
        let path = path(for: userID)
        guard let bytes = try FileIO.read(path) else { return .missing }
        switch Result(catching: { () throws(ValidationError) in try UserRecord(json: bytes) }) {
        case .success(let record) where record.userID == userID:
            return .record(record)
        case .success(let record):
            return .quarantined(
                movedTo: try quarantine(path), reason: "file holds user \(record.userID), not \(userID)")
        case .failure(let error):
            return .quarantined(movedTo: try quarantine(path), reason: error.description)
        }
    }

    /// Moves an unreadable file aside, keeping its name with a timestamp so repeated
    /// quarantines of one user do not overwrite each other.
    func quarantine(_ path: String) throws(StoreError) -> String {
        let target = quarantinePath(for: path)
        guard rename(path, target) == 0 else { throw .io("rename", path) }
        return target
    }

    /// Keeps a copy of a file that stays in use (a damaged log segment) for inspection. It is
    /// staged in `tmp/`, so a crash midway leaves nothing half-copied in `quarantine/`.
    func quarantineCopy(_ path: String) throws(StoreError) -> String {
        let target = quarantinePath(for: path)
        guard let bytes = try FileIO.read(path) else { throw .io("open", path, errno: ENOENT) }
        let staged = temporaryDirectory + "/" + (target as NSString).lastPathComponent + ".quarantine"
        try FileIO.replaceFile(target, with: bytes, temporaryPath: staged, durable: true)
        return target
    }

    /// Where `path` goes in `quarantine/`: its name and the time in milliseconds.
    private func quarantinePath(for path: String) -> String {
        let name = path.split(separator: "/").last.map(String.init) ?? "file"
        return "\(quarantineDirectory)/\(name).\(Int64(Date().timeIntervalSince1970 * 1000))"
    }

    public var quarantinedCount: Int { FileIO.list(quarantineDirectory).count }

    /// Every user file, decoded; undecodable ones are quarantined and reported to `onBad`.
    /// This is the slow path (a cold read of every file) used only without a snapshot.
    func scan(onBad: (String, String) -> Void) throws(StoreError) -> [UserRecord] {
        var records: [UserRecord] = []
        for first in FileIO.list(usersDirectory) {
            for second in FileIO.list("\(usersDirectory)/\(first)") {
                let shard = "\(usersDirectory)/\(first)/\(second)"
                for name in FileIO.list(shard) {
                    let path = "\(shard)/\(name)"
                    guard let userID = UserID(fileName: name) else {
                        onBad(try quarantine(path), "file name is not an encoded user ID")
                        continue
                    }
                    switch try read(userID) {
                    case .missing: continue
                    case .record(let record): records.append(record)
                    case .quarantined(let target, let reason): onBad(target, reason)
                    }
                }
            }
        }
        return records
    }
}
