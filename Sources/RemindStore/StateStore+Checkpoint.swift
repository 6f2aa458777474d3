import Dispatch
import Foundation
import RemindCore

#if canImport(Glibc)
    import Glibc
#endif

extension StateStore {
    /// Writes every changed user file and, with `snapshot`, the start-up snapshot, after which
    /// the log segments it covers are deleted.
    ///
    /// Files are written as temp files, made durable together with one `syncfs`, then renamed
    /// into place and synced again: never a torn file, and a few syscalls per file instead of
    /// an fsync each. The file I/O runs on its own thread, off the actor and the cooperative
    /// pool, so reports keep flowing meanwhile.
    public func checkpoint(snapshot: Bool) async throws {
        guard !checkpointing else { return }
        checkpointing = true
        defer { checkpointing = false }
        // Entries appended lazily (acks) are on disk before the snapshot that drops them.
        let ticket = appendTickets
        let segment = snapshot ? try await wal.rotate() : nil
        // Appends begun before the rotation sit in the segments the snapshot will replace:
        // they must be in memory before it is taken.
        await drain(upTo: ticket)
        let batch = dirty.compactMap { userID, version in cache[userID].map { ($0, version) } }
        let files = self.files
        if !batch.isEmpty {
            try await Self.runBlocking { () throws(StoreError) in
                try files.writeAll(batch.map(\.0))
            }
        }
        for (record, written) in batch where dirty[record.userID] == written {
            dirty[record.userID] = nil
        }
        guard let segment else { return }
        let contents = Snapshot(
            segment: segment, schedules: schedules.values,
            events: outbox.ordered.map { ($0.event, Array($0.remaining)) }, deadLetters: deadLetters)
        let directory = self.directory
        try await Self.runBlocking { () throws(StoreError) in
            let (schedules, outbox) = contents.encoded()
            try FileIO.replaceFile(
                directory + "/" + Snapshot.outboxFileName, with: outbox,
                temporaryPath: directory + "/tmp/" + Snapshot.outboxFileName, durable: true)
            try FileIO.replaceFile(
                directory + "/" + Snapshot.fileName, with: schedules,
                temporaryPath: directory + "/tmp/" + Snapshot.fileName, durable: true)
            try FileIO.fsyncDirectory(directory)
        }
        wal.removeSegments(before: segment)
    }

    /// Ends the store: a last checkpoint with a snapshot (so the next start is fast), then the
    /// log closes. The lock is released when the store is gone.
    public func close() async {
        do {
            try await checkpoint(snapshot: true)
        } catch {
            notice(.checkpointFailed("at shutdown: \(error)"))
        }
        wal.stop()
        lock.release()
    }

    private static let ioQueue = DispatchQueue(label: "remindd.store.io")

    static func runBlocking(_ body: @escaping @Sendable () throws(StoreError) -> Void) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            ioQueue.async {
                do {
                    try body()
                    continuation.resume()
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        }
    }
}

extension UserFiles {
    /// Writes many records so that none is ever torn: all temp files, one sync, all renames,
    /// one more sync.
    func writeAll(_ records: [UserRecord]) throws(StoreError) {
        var staged: [(temporary: String, final: String)] = []
        staged.reserveCapacity(records.count)
        defer {
            // Whatever was not renamed (an error part way) must not linger.
            for (temporary, _) in staged { unlink(temporary) }
        }
        for (offset, record) in records.enumerated() {
            let temporary = "\(temporaryDirectory)/\(offset).json.tmp"
            let fd = try FileIO.open(temporary, O_WRONLY | O_CREAT | O_TRUNC)
            let result = Result { () throws(StoreError) in try FileIO.writeAll(fd, record.jsonBytes, path: temporary) }
            close(fd)
            staged.append((temporary, path(for: record.userID)))
            try result.get()
        }
        try FileIO.syncFileSystem(directory)
        while let (temporary, final) = staged.last {
            if rename(temporary, final) != 0 {
                guard errno == ENOENT else { throw .io("rename", final) }
                // The shard directories are created on first use.
                let parent = String(final[..<final.lastIndex(of: "/")!])
                try FileIO.makeDirectories(parent)
                guard rename(temporary, final) == 0 else { throw .io("rename", final) }
            }
            staged.removeLast()
        }
        try FileIO.syncFileSystem(directory)
    }
}
