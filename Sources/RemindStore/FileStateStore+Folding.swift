import Foundation
import NIOPosix
import RemindCore

#if canImport(Glibc)
    import Glibc
#endif

extension FileStateStore {
    /// Users whose pending repeats a checkpoint folds into their files, the longest pending
    /// first. Folding every active user's file every two seconds (a read, a decode, an encode
    /// and a write each) took a quarter of the daemon's CPU under `make bench` W1a; the log
    /// holds the repeats meanwhile, so the files can catch up at this pace (1,024 a second).
    static let foldLimit = 2048

    /// Users whose fired changes a checkpoint folds into their files. A burst of due reminders
    /// leaves one per user fired (a million in `make bench` W2); folding 4,096 every 2 s drains
    /// that in minutes without taking the disk from the sinks meanwhile, and a snapshot logs
    /// what is left again (about 100 bytes per user).
    static let fireFoldLimit = 4096

    /// Folds pending repeats and fired changes into their users' files, for at most `limit`
    /// users with repeats and `fireLimit` users with fired changes.
    ///
    /// A record in memory takes them in and is written with the checkpoint's batch. A record
    /// not in memory is read, folded, encoded and written back off the actor, a chunk of users
    /// at a time, without entering the cache: a fold of many users would otherwise evict the
    /// records the scheduler and changes need, and hold the actor for as long as it took. Each
    /// chunk's users are owned until their files are written (their reports wait); a user busy
    /// with something else is folded next time.
    func foldPending(limit: Int, fireLimit: Int) async throws {
        var unread: [UserID] = []
        var busy: [UserID] = []
        var pendingUsers = pendingRepeats.takePendingUsers()
        if pendingUsers.count > limit {
            pendingRepeats.returnPending(Array(pendingUsers[limit...]))
            pendingUsers.removeSubrange(limit...)
        }
        let fired = pendingFires.oldestUnapplied(limit: fireLimit)
        let repeating = Set(pendingUsers)
        pendingUsers += fired.lazy.filter { !repeating.contains($0) }
        for (index, userID) in pendingUsers.enumerated()
        where pendingRepeats.hasPending(userID) || pendingFires.unapplied(userID) != nil {
            if let cached = cache[userID] {
                // Nothing can change the record while this runs without suspending.
                if locks.isHeld(userID) { busy.append(userID) } else { _ = materialized(cached) }
            } else {
                unread.append(userID)
            }
            if index % 1024 == 1023 { await Task.yield() }
        }
        pendingRepeats.keepPending(busy)
        pendingFires.returnUnfolded(busy)
        // The last checkpoint folds everything left, in chunks large enough that each is made
        // durable by one `syncfs` per round rather than a device flush per file.
        let closing = limit == .max || fireLimit == .max
        let chunkSize = closing ? Self.closingFoldChunk : Self.foldChunk
        for start in stride(from: 0, to: unread.count, by: chunkSize) {
            let chunk = unread[start..<min(start + chunkSize, unread.count)]
            var owned: [UserID] = []
            var left: [UserID] = []
            for userID in chunk {
                if cache[userID] == nil, lockUser(userID) { owned.append(userID) } else { left.append(userID) }
            }
            // A record loaded meanwhile is folded when it was (`materialized`); a busy one later.
            pendingRepeats.keepPending(left)
            pendingFires.returnUnfolded(left)
            try await foldUnread(owned, inParallel: closing)
        }
    }

    static let foldChunk = 512
    static let closingFoldChunk = 4 * UserFiles.poolSize

    /// Reads, folds and writes back the files of users this checkpoint owns; `inParallel`, the
    /// reads are spread over the I/O pool (the last checkpoint, which folds everything left).
    private func foldUnread(_ userIDs: [UserID], inParallel: Bool) async throws {
        guard !userIDs.isEmpty else { return }
        defer { for userID in userIDs { unlockUser(userID) } }
        let jobs = userIDs.compactMap { userID -> (UserID, LoggedRepeats?, [FiredChange])? in
            let fires = pendingFires.unapplied(userID) ?? []
            let pending = pendingRepeats.take(userID)
            return pending == nil && fires.isEmpty ? nil : (userID, pending, fires)
        }
        let files = self.files
        let results: [(UserID, UserFiles.ReadResult?, Date?)]
        do {
            // At a stop after a burst of due reminders the files are cold, and one thread reading
            // them one at a time waits on the disk; a steady fold leaves the disk to the sinks.
            let userIDs = jobs.map(\.0)
            let reads =
                inParallel
                ? try await files.read(userIDs, on: io)
                : try await io.runBlocking { () throws(StoreError) in
                    try userIDs.map { userID throws(StoreError) in try files.read(userID) }
                }
            results = try await io.runBlocking { () throws(StoreError) in
                var writes: [(userID: UserID, json: [UInt8], fresh: Bool)] = []
                var results: [(UserID, UserFiles.ReadResult?, Date?)] = []
                for ((userID, pending, fires), read) in zip(jobs, reads) {
                    guard case .record(var record) = read else {
                        results.append((userID, read, nil))
                        continue
                    }
                    for change in fires { record.apply(change) }
                    if let pending { record.fold(pending) }
                    writes.append((userID, record.jsonBytes, false))
                    results.append((userID, nil, record.lastReportAt))
                }
                try files.writeAll(writes)
                return results
            }
        } catch {
            // Nothing was written: the repeats and fired changes wait for the next checkpoint.
            for (userID, pending, _) in jobs {
                if let pending { pendingRepeats.restore(pending) }
            }
            pendingFires.returnUnfolded(jobs.map(\.0))
            throw error
        }
        for ((userID, pending, _), (_, read, lastReportAt)) in zip(jobs, results) {
            // Written, or the user is gone: either way nothing of theirs is pending any more.
            pendingFires.remove(userID)
            if let lastReportAt {
                if pending != nil { schedules.noteRepeat(of: userID, lastReportAt: lastReportAt) }
            } else if let read {
                // Missing or quarantined: the user, and their row, go.
                _ = try? adopt(read, of: userID)
                pendingRepeats.remove(userID)
            }
        }
    }
}
