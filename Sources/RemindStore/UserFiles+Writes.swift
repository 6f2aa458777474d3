import CRemindSys
import Foundation
import RemindCore

#if canImport(Glibc)
    import Glibc
#endif

extension UserFiles {
    /// Writes many records so that none is ever torn: each to a temp file, all of them made
    /// durable by one `syncfs`, then swapped into place. The swaps are not synced here (see
    /// `checkpoint`).
    ///
    /// The temp files are a pool (`tmp/<n>.json.tmp`) that is overwritten in place and
    /// *exchanged* with the user's file (`renameat2(RENAME_EXCHANGE)`), so the pool slot then
    /// holds the previous version's inode and blocks for the next checkpoint to overwrite. A
    /// rename would free an inode per file and allocate one per temp file every checkpoint:
    /// on this ext4 (no journal, mounted with `discard`) freeing discards the blocks
    /// synchronously, and allocating scans past every inode freed in the last minute, which
    /// took a third of the daemon's CPU under a steady report load (`make bench` W1). The
    /// pool is cleared at start-up with the rest of `tmp/`.
    ///
    /// A user's first file (`fresh`: no revision of theirs was ever written) is renamed into
    /// its shard, made once (`makeShard`), without trying the exchange first.
    func writeAll(_ records: [(userID: UserID, json: [UInt8], fresh: Bool)]) throws(StoreError) {
        // No fsync per file: each is a device flush (200,000 of them took 83 s). Each temp
        // file's writeback starts as it is written, so the round's one `syncfs` finds most of
        // it done and stalls the log's own fsyncs for as little as it can. Rounds keep the pool
        // at `poolSize` files, which a clean stop deletes.
        for start in stride(from: 0, to: records.count, by: Self.poolSize) {
            try writeRound(records[start..<min(start + Self.poolSize, records.count)])
        }
    }

    static let poolSize = 4096

    private func writeRound(_ records: ArraySlice<(userID: UserID, json: [UInt8], fresh: Bool)>) throws(StoreError) {
        var staged: [(temporary: String, final: String, userID: UserID, fresh: Bool)] = []
        staged.reserveCapacity(records.count)
        defer {
            // Whatever was not swapped in (an error part way) must not linger.
            for (temporary, _, _, _) in staged { unlink(temporary) }
        }
        for (offset, record) in records.enumerated() {
            let temporary = "\(temporaryDirectory)/\(offset).json.tmp"
            // No O_TRUNC: rewriting the slot's blocks in place frees and allocates nothing.
            let fd = try FileIO.open(temporary, O_WRONLY | O_CREAT)
            defer { close(fd) }
            staged.append((temporary, path(for: record.userID), record.userID, record.fresh))
            let bytes = record.json
            try FileIO.writeAll(fd, bytes, path: temporary)
            guard ftruncate(fd, off_t(bytes.count)) == 0 else { throw .io("ftruncate", temporary) }
            _ = remindsys_start_writeback(fd)
        }
        // Every temp file durable before any is swapped in: a swap may then be lost in a
        // crash (the log replays its change) but never leaves a torn file in `users/`.
        if !staged.isEmpty { try FileIO.syncFileSystem(directory) }
        while let (temporary, final, userID, fresh) = staged.last {
            if fresh {
                try makeShard(of: userID)
            } else if remindsys_rename_exchange(temporary, final) == 0 {
                staged.removeLast()
                continue
            } else {
                // No file to swap with after all (a user whose file was removed), or a file
                // system without the call.
                guard errno == ENOENT || errno == EINVAL || errno == ENOSYS else { throw .io("rename", final) }
                try makeShard(of: userID)
            }
            if rename(temporary, final) != 0 {
                guard errno == ENOENT else { throw .io("rename", final) }
                // The shard was removed behind our back: made again.
                shards.remove(userID.shardIndex)
                try makeShard(of: userID)
                guard rename(temporary, final) == 0 else { throw .io("rename", final) }
            }
            staged.removeLast()
        }
    }
}
