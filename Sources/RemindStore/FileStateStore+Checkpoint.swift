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
    /// Each file is written to a temp file, the batch made durable by one `syncfs` (no fsync
    /// per file), then each swapped into place: never a torn file. The swaps are made durable by
    /// the `syncfs` before a snapshot lets log segments go; until then the log still holds every
    /// change, so a swap lost in a crash is replayed. The file I/O runs on the I/O pool, off
    /// the actor and the cooperative pool, so reports keep flowing.
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
        // Repeats noted since the last checkpoint become durable in one small entry; a
        // snapshot logs every pending repeat again below instead.
        if segment == nil { try await logRepeats(pendingRepeats.takeUnlogged()) }
        try await foldPending(limit: foldLimit, fireLimit: fireFoldLimit)
        let batch = cache.pending
        let files = self.files
        if !batch.isEmpty {
            try await io.runBlocking { () throws(StoreError) in
                try files.writeAll(
                    batch.map { ($0.record.userID, $0.json ?? $0.record.jsonBytes, $0.fresh) })
            }
        }
        cache.markWritten(batch)
        // Fired changes whose records carried them to the files are pending no more.
        let written = pendingFires.inRecordUsers.filter { !cache.isDirty($0) }
        for userID in written { pendingFires.remove(userID) }
        guard let segment else { return }
        // The segments the snapshot lets go hold repeats and fired changes not yet in their
        // files: the segment it keeps gets them again.
        try await logRepeats(pendingRepeats.takeAllPending())
        try await logFires(pendingFires.all)
        let contents = Snapshot(
            segment: segment, schedules: schedules.table.values,
            events: outbox.pendingGroups, deadLetters: deadLetterList.all)
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
    /// The caller took them from `pendingRepeats` without suspending since, so no change of
    /// theirs can be logged between: a user's change always comes after their repeats in the log.
    private func logRepeats(_ users: [LoggedRepeats]) async throws {
        guard !users.isEmpty else { return }
        do {
            try await wal.append(batch: LogEntry.lines(users, LogEntry.repeats))
        } catch {
            pendingRepeats.markUnlogged(users.map(\.userID))
            throw error
        }
    }

    /// Appends fired changes again (`LogEntry.fired`, without events), a line per 1,024 changes.
    private func logFires(_ changes: [FiredChange]) async throws {
        guard !changes.isEmpty else { return }
        try await wal.append(batch: LogEntry.lines(changes) { .fired($0, events: []) })
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
    /// beside another that failed to open (nothing was changed yet), and for a store that was
    /// only read (a migration's source), whose files stay exactly as they were.
    public nonisolated func abandon() {
        wal.stop()
        wal.removeIfUnused()
        lock.release()
    }
}
