import CRemindSys
import Foundation
import RemindCore

#if canImport(Glibc)
    import Glibc
#endif

extension FileStateStore {
    /// Writes every changed user file and, with `snapshot`, the start-up snapshot, after which
    /// the log segments it covers are deleted.
    ///
    /// Each file is written to a temp file and `fdatasync`'d, then swapped into place: never a
    /// torn file. The swaps are made durable by one `syncfs` before a snapshot lets log segments
    /// go; until then the log still holds every change, so a swap lost in a crash is replayed.
    /// (A `syncfs` per checkpoint stalled the log's and the sinks' own fsyncs for 50–140 ms
    /// every two seconds, the worst of a reminder's lateness in `make bench` W5.) The file I/O
    /// runs on the I/O pool, off the actor and the cooperative pool, so reports keep flowing.
    public func checkpoint(snapshot: Bool) async throws {
        try await checkpoint(snapshot: snapshot, foldLimit: Self.foldLimit)
    }

    /// A checkpoint that folds the pending repeats of at most `foldLimit` users into their files,
    /// and the fired changes of at most `fireFoldLimit` users.
    func checkpoint(snapshot: Bool, foldLimit: Int, fireFoldLimit: Int = fireFoldLimit) async throws {
        guard !checkpointing else { return }
        checkpointing = true
        defer { checkpointing = false }
        // Replayed outcomes are appended only once the outcomes log said which it has.
        try await loadOutcomes()
        // Entries appended lazily (acks) are on disk before the snapshot that drops them.
        let ticket = tickets.latest
        let segment = snapshot ? try await wal.rotate() : nil
        // Appends begun before the rotation sit in the segments the snapshot will replace:
        // they must be in memory before it is taken.
        await waitUntilApplied(upTo: ticket)
        // Closed episodes go to the outcomes log before any segment holding them can go.
        let outcomes = pendingOutcomes
        if !outcomes.isEmpty {
            let log = outcomeLog
            try await io.runBlocking { () throws(StoreError) in try log.append(outcomes) }
            // Outcomes recorded meanwhile were appended to the queue's end: they stay.
            pendingOutcomes.removeFirst(outcomes.count)
        }
        // Repeats answered since the last checkpoint become durable in one small entry; a
        // snapshot logs every pending repeat again below instead.
        if segment == nil { try await logRepeats(repeats.takeUnlogged()) }
        try await foldPending(limit: foldLimit, fireLimit: fireFoldLimit)
        let batch = cache.pending
        let files = self.files
        if !batch.isEmpty {
            try await io.runBlocking { () throws(StoreError) in
                try files.writeAll(batch.map { ($0.record.userID, $0.json ?? $0.record.jsonBytes) })
            }
        }
        cache.markWritten(batch)
        // Fired changes whose records carried them to the files are pending no more.
        let written = pendingFires.inRecordUsers.filter { !cache.isDirty($0) }
        for userID in written { pendingFires.remove(userID) }
        guard let segment else { return }
        // The segments the snapshot lets go hold repeats and fired changes not yet in their
        // files: the segment it keeps gets them again.
        try await logRepeats(repeats.takeAllPending())
        try await logFires(pendingFires.all)
        let contents = Snapshot(
            segment: segment, schedules: schedules.table.values,
            events: outbox.ordered.map { ($0.event, Array($0.remaining)) }, deadLetters: deadLetterList.all)
        let directory = self.directory
        try await io.runBlocking { () throws(StoreError) in
            // Every swap of a user file since the last snapshot becomes durable here, before
            // the segments that still hold those changes are deleted.
            try FileIO.syncFileSystem(directory)
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

    /// Appends users' pending repeats to the log (`LogEntry.repeats`), a line per 1,024 users.
    /// The caller took them from the desk without suspending since, so no change of theirs can
    /// be logged between: a user's change always comes after their repeats in the log.
    private func logRepeats(_ users: [LoggedRepeats]) async throws {
        guard !users.isEmpty else { return }
        do {
            try await wal.append(batch: LogEntry.lines(users, LogEntry.repeats))
        } catch {
            repeats.markUnlogged(users.map(\.userID))
            throw error
        }
    }

    /// Appends fired changes again (`LogEntry.fired`, without events), a line per 1,024 changes.
    private func logFires(_ changes: [FiredChange]) async throws {
        guard !changes.isEmpty else { return }
        try await wal.append(batch: LogEntry.lines(changes) { .fired($0, events: []) })
    }

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
        var pendingUsers = repeats.takePendingUsers()
        if pendingUsers.count > limit {
            repeats.returnPending(Array(pendingUsers[limit...]))
            pendingUsers.removeSubrange(limit...)
        }
        let fired = pendingFires.oldestUnapplied(limit: fireLimit)
        let repeating = Set(pendingUsers)
        pendingUsers += fired.lazy.filter { !repeating.contains($0) }
        for (index, userID) in pendingUsers.enumerated()
        where repeats.hasPending(userID) || pendingFires.unapplied(userID) != nil {
            if let cached = cache[userID] {
                // Nothing can change the record while this runs without suspending.
                if locks.isHeld(userID) { busy.append(userID) } else { _ = materialized(cached) }
            } else {
                unread.append(userID)
            }
            if index % 1024 == 1023 { await Task.yield() }
        }
        repeats.keepPending(busy)
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
            repeats.keepPending(left)
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
        let jobs = userIDs.compactMap { userID -> (UserID, RepeatedReports?, [FiredChange])? in
            let fires = pendingFires.unapplied(userID) ?? []
            let pending = repeats.takePending(userID)
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
                var writes: [(userID: UserID, json: [UInt8])] = []
                var results: [(UserID, UserFiles.ReadResult?, Date?)] = []
                for ((userID, pending, fires), read) in zip(jobs, reads) {
                    guard case .record(var record) = read else {
                        results.append((userID, read, nil))
                        continue
                    }
                    for change in fires { record.apply(change) }
                    if let pending { record.fold(pending) }
                    writes.append((userID, record.jsonBytes))
                    results.append((userID, nil, record.lastReportAt))
                }
                try files.writeAll(writes)
                return results
            }
        } catch {
            // Nothing was written: the repeats and fired changes wait for the next checkpoint.
            for (userID, pending, _) in jobs {
                if let pending { repeats.restorePending(pending, of: userID) }
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
                repeats.remove(userID)
            }
        }
    }

    /// Ends the store: a last checkpoint with a snapshot (so the next start is fast), then the
    /// log closes. The lock is released when the store is gone.
    public func close() async {
        do {
            // Every repeat and fired change goes into its file: the next start then reads none.
            try await checkpoint(snapshot: true, foldLimit: .max, fireFoldLimit: .max)
        } catch {
            notice(.checkpointFailed("at shutdown: \(error)"))
        }
        wal.stop()
        // The checkpoints' temp-file pool holds old versions only; a clean stop leaves none.
        _ = try? files.prepare()
        lock.release()
    }

    /// Stops the log and gives the directory up without a checkpoint: for a part opened
    /// beside another that failed to open (nothing was changed yet).
    nonisolated func abandon() {
        wal.stop()
        lock.release()
    }
}

extension UserFiles {
    /// Writes many records so that none is ever torn: each to a temp file, made durable, then
    /// swapped into place. The swaps are not synced here (see `checkpoint`).
    ///
    /// The temp files are a pool (`tmp/<n>.json.tmp`) that is overwritten in place and
    /// *exchanged* with the user's file (`renameat2(RENAME_EXCHANGE)`), so the pool slot then
    /// holds the previous version's inode and blocks for the next checkpoint to overwrite. A
    /// rename would free an inode per file and allocate one per temp file every checkpoint:
    /// on this ext4 (no journal, mounted with `discard`) freeing discards the blocks
    /// synchronously, and allocating scans past every inode freed in the last minute, which
    /// took a third of the daemon's CPU under a steady report load (`make bench` W1). The
    /// pool is cleared at start-up with the rest of `tmp/`.
    func writeAll(_ records: [(userID: UserID, json: [UInt8])]) throws(StoreError) {
        // A small batch (a steady load) is made durable file by file, in chunks whose writeback
        // starts together: a `syncfs` stalls every other fsync on the file system (the log's,
        // the sinks') for 50–140 ms. A large one (a burst, the shutdown checkpoint) takes one
        // `syncfs` per round: each fdatasync is a device flush, and 200,000 of them took 83 s.
        // Rounds keep the pool at `poolSize` files, which a clean stop deletes.
        let eachFile = records.count <= Self.poolSize
        for start in stride(from: 0, to: records.count, by: Self.poolSize) {
            try writeRound(records[start..<min(start + Self.poolSize, records.count)], eachFile: eachFile)
        }
    }

    static let poolSize = 4096

    private func writeRound(_ records: ArraySlice<(userID: UserID, json: [UInt8])>, eachFile: Bool) throws(StoreError) {
        var staged: [(temporary: String, final: String)] = []
        staged.reserveCapacity(records.count)
        defer {
            // Whatever was not swapped in (an error part way) must not linger.
            for (temporary, _) in staged { unlink(temporary) }
        }
        let chunk = 256
        var open: [Int32] = []
        defer { for fd in open { close(fd) } }
        for (offset, record) in records.enumerated() {
            let temporary = "\(temporaryDirectory)/\(offset).json.tmp"
            // No O_TRUNC: rewriting the slot's blocks in place frees and allocates nothing.
            let fd = try FileIO.open(temporary, O_WRONLY | O_CREAT)
            open.append(fd)
            staged.append((temporary, path(for: record.userID)))
            let bytes = record.json
            try FileIO.writeAll(fd, bytes, path: temporary)
            guard ftruncate(fd, off_t(bytes.count)) == 0 else { throw .io("ftruncate", temporary) }
            if eachFile { _ = remindsys_start_writeback(fd) }
            if open.count == chunk || offset == records.count - 1 {
                for (index, fd) in open.enumerated() where eachFile && fdatasync(fd) != 0 {
                    throw .io("fdatasync", staged[staged.count - open.count + index].temporary)
                }
                for fd in open { close(fd) }
                open.removeAll(keepingCapacity: true)
            }
        }
        if !eachFile { try FileIO.syncFileSystem(directory) }
        while let (temporary, final) = staged.last {
            if remindsys_rename_exchange(temporary, final) != 0 {
                // A new user (no file to swap with), or a file system without the call.
                guard errno == ENOENT || errno == EINVAL || errno == ENOSYS else { throw .io("rename", final) }
                if rename(temporary, final) != 0 {
                    guard errno == ENOENT else { throw .io("rename", final) }
                    // The shard directories are created on first use.
                    let parent = String(final[..<final.lastIndex(of: "/")!])
                    try FileIO.makeDirectories(parent)
                    guard rename(temporary, final) == 0 else { throw .io("rename", final) }
                }
            }
            staged.removeLast()
        }
    }
}
