import Foundation
import RemindCore

#if canImport(Glibc)
    import Glibc
#endif

/// Start-up of the files backend: the state as of the last acknowledged write, from the
/// snapshot (or, without one, a scan of every user file) plus a replay of the write-ahead log
/// from the segment the snapshot covers.
///
/// The result is exactly what a full scan of the user files plus the whole log would give:
/// the log is newer than any file or snapshot, so its records win.
enum Recovery {
    /// What start-up found, for the store to take over.
    struct Recovered {
        var schedules = PackedSchedules()
        /// Records whose newest state is in the log, not (yet) in their files.
        var records: [UserID: UserRecord] = [:]
        var outbox: Outbox
        var deadLetters = DeadLetterList()
        var summary: OpenSummary
        /// Closed episodes of the replayed log, in log order; some may be in the outcomes log
        /// already (appended by a checkpoint before the crash): `OutcomeLog` tells which.
        var outcomes: [EpisodeOutcome] = []
        /// Each user's newest logged repeats with no change after them, until they are folded.
        var repeats: [UserID: LoggedRepeats] = [:]
        /// Fired changes the log holds, per user in log order: applied to the rows (and to the
        /// records above), and pending for the files (`PendingFires`).
        var fires: [UserID: [FiredChange]] = [:]
        /// Logged changes that did not apply to the user's file, reported once the whole log is
        /// replayed: a later delete (or a new user of the same ID) explains them.
        var unapplied: [UserID: String] = [:]
        /// Files moved to quarantine during replay.
        var quarantined: [StoreNotice] = []
    }

    static func run(
        files: UserFiles, walDirectory: String, sinks: [String], notice: (StoreNotice) -> Void
    ) throws(StoreError) -> Recovered {
        let directory = files.directory
        var recovered = Recovered(
            outbox: Outbox(sinks: sinks),
            summary: OpenSummary(users: 0, fromSnapshot: false, replayedEntries: 0, pendingEvents: 0))
        let outboxPath = directory + "/" + Snapshot.outboxFileName
        if let bytes = try FileIO.read(outboxPath) {
            do throws(SnapshotDamage) {
                let pending = try Snapshot(bytes: bytes)
                for (event, sinks) in pending.events { recovered.outbox.enqueue(event, sinks: sinks) }
                for letter in pending.deadLetters { recovered.deadLetters.put(letter) }
            } catch {
                // Nothing else holds these events once their log segments are gone: keep what
                // still decodes, and the file for inspection.
                let salvaged = Snapshot.salvage(bytes)
                for (event, sinks) in salvaged.events { recovered.outbox.enqueue(event, sinks: sinks) }
                for letter in salvaged.deadLetters { recovered.deadLetters.put(letter) }
                notice(
                    .damagedFile(
                        path: outboxPath, movedTo: try files.quarantine(outboxPath), reason: error.description,
                        consequence:
                            "kept the \(salvaged.events.count) pending events and \(salvaged.deadLetters.count) dead letters that still decode; \(salvaged.lost) lines could not be read"
                    ))
            }
        }
        var firstSegment: UInt64 = 0
        let snapshotPath = directory + "/" + Snapshot.fileName
        var snapshot: Snapshot?
        if let bytes = try FileIO.read(snapshotPath) {
            do throws(SnapshotDamage) {
                snapshot = try Snapshot(bytes: bytes)
            } catch {
                notice(
                    .damagedFile(
                        path: snapshotPath, movedTo: try files.quarantine(snapshotPath), reason: error.description,
                        consequence: "read every user file instead (a slower start, nothing lost)"))
            }
        }
        if let snapshot, snapshot.schedulesOutdated {
            // An older format: its events are good, but its user lines lack the service
            // conditions. The user files are as new as the snapshot, so they replace its user
            // lines and the log is replayed from the same segment; the next snapshot is current.
            firstSegment = snapshot.segment
            let records = try files.scan { path, reason in
                notice(.quarantined(path: path, movedTo: path, reason: reason))
            }
            for record in records { recovered.schedules[record.userID] = record.schedule }
            notice(.scannedAllFiles(users: records.count))
        } else if let segment = snapshot?.segment {
            recovered.summary.fromSnapshot = true
            firstSegment = segment
            // Taken, not shared: a table still referenced here would be copied whole (tens of
            // megabytes at a million users) by the replay's first change.
            swap(&recovered.schedules, &snapshot!.table)
            snapshot = nil
        } else {
            let records = try files.scan { path, reason in
                notice(.quarantined(path: path, movedTo: path, reason: reason))
            }
            for record in records { recovered.schedules[record.userID] = record.schedule }
            notice(.scannedAllFiles(users: records.count))
        }

        let report = try WriteAheadLog.replay(
            directory: walDirectory, from: firstSegment, decode: LogEntry.init(line:)
        ) { entry in
            recovered.summary.replayedEntries += 1
            apply(entry, to: &recovered, files: files)
        }
        if report.cutBytes > 0 { notice(.cutTornLogTail(bytes: report.cutBytes)) }
        for quarantined in recovered.quarantined { notice(quarantined) }
        for (userID, reason) in recovered.unapplied.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            notice(
                .damagedFile(
                    path: files.path(for: userID), movedTo: files.path(for: userID), reason: reason,
                    consequence: "skipped the change and kept what the file holds"))
        }
        try foldRepeats(into: &recovered, files: files, notice: notice)
        for (path, skipped) in report.damaged {
            notice(
                .damagedFile(
                    path: path, movedTo: try files.quarantineCopy(path),
                    reason: "\(skipped) entries failed their checksum",
                    consequence: "skipped them and replayed every other entry; the segment stays in use"))
        }
        recovered.summary.users = recovered.schedules.count
        recovered.summary.pendingEvents = recovered.outbox.entries.count
        return recovered
    }

    private static func apply(_ entry: LogEntry, to recovered: inout Recovered, files: UserFiles) {
        switch entry {
        case .change(let delta, let events, let outcomes):
            for (event, sinks) in events { recovered.outbox.enqueue(event, sinks: sinks) }
            recovered.outcomes += outcomes
            apply(delta, to: &recovered, files: files)
        case .put(let record, let events, let outcomes):
            recovered.unapplied[record.userID] = nil
            // The file is rewritten at the next checkpoint, which also repairs a file torn by
            // a crash during the last one.
            recovered.schedules[record.userID] = record.schedule
            recovered.records[record.userID] = record
            // A change's record carries every repeat before it.
            recovered.repeats[record.userID] = nil
            for (event, sinks) in events { recovered.outbox.enqueue(event, sinks: sinks) }
            recovered.outcomes += outcomes
        case .delete(let userID, let outcome):
            if let outcome { recovered.outcomes.append(outcome) }
            recovered.unapplied[userID] = nil
            recovered.schedules[userID] = nil
            recovered.records[userID] = nil
            recovered.repeats[userID] = nil
            recovered.fires[userID] = nil
            // The logged delete covers a crash before the unlink: unlink again.
            try? files.remove(userID)
        case .ack(let eventID, let sink):
            recovered.outbox.complete(eventID, sink: sink)
        case .dead(let letter):
            recovered.deadLetters.put(letter)
            recovered.outbox.complete(letter.event.id, sink: letter.sink)
        case .replay(let eventID, let sink):
            if let letter = recovered.deadLetters.take(eventID: eventID, sink: sink) {
                recovered.outbox.requeue(letter.event, sink: sink)
            }
        case .repeats(let users):
            for user in users where recovered.schedules[user.userID] != nil {
                recovered.repeats[user.userID] = user
            }
        case .fired(let changes, let events):
            for change in changes {
                guard var schedule = recovered.schedules[change.userID] else { continue }
                // Idempotent: the snapshot's row or the replayed record may hold it already.
                schedule.apply(change)
                recovered.schedules[change.userID] = schedule
                recovered.records[change.userID]?.apply(change)
                recovered.fires[change.userID, default: []].append(change)
            }
            for (event, sinks) in events { recovered.outbox.enqueue(event, sinks: sinks) }
        }
    }

    /// Applies a logged change to the user's record: the replayed one, else their file's (with
    /// the changes fired from the row since). A file that holds the change's revision already
    /// was written by a checkpoint after it, and stays as it is. A change that does not follow
    /// is noted (`unapplied`), unless the log deletes the user later: the file read may then be
    /// a new user's of the same ID.
    private static func apply(_ delta: RecordDelta, to recovered: inout Recovered, files: UserFiles) {
        let userID = delta.userID
        var base: UserRecord?
        if let replayed = recovered.records[userID] {
            base = replayed
        } else {
            // A failed read leaves the user as the snapshot or scan had them, as a torn entry would.
            switch (try? files.read(userID)) ?? .missing {
            case .record(let read):
                base = read
            case .missing where delta.revision == 1:
                // A new user's first change: nothing to apply it to, and nothing needed.
                base = nil
            case .missing:
                recovered.unapplied[userID] = "the log holds revision \(delta.revision) of a user whose file is missing"
                return
            case .quarantined(let movedTo, let reason):
                // As for an unreadable file anywhere: the user is treated as unknown.
                recovered.quarantined.append(
                    .quarantined(path: files.path(for: userID), movedTo: movedTo, reason: reason))
                recovered.schedules[userID] = nil
                recovered.fires[userID] = nil
                recovered.repeats[userID] = nil
                return
            }
            if let file = base {
                guard file.revision < delta.revision else { return }
                for change in recovered.fires[userID] ?? [] { base?.apply(change) }
            }
        }
        guard let record = delta.applied(to: base) else {
            let revision = base?.revision ?? 0
            if revision < delta.revision {
                recovered.unapplied[userID] =
                    "the log's change of revision \(delta.revision) does not follow revision \(revision)"
            }
            return
        }
        recovered.unapplied[userID] = nil
        recovered.schedules[userID] = record.schedule
        recovered.records[userID] = record
        // The change carries every repeat before it (`RecordDelta`).
        recovered.repeats[userID] = nil
    }

    /// Folds the repeats the log holds into their users' records, reading the files of users
    /// whose last change is not in the log. Only a start after a crash finds any: a clean stop
    /// folds every repeat into the files first (`FileStateStore.close`). The records then count
    /// as changed, so the first checkpoint writes them.
    private static func foldRepeats(
        into recovered: inout Recovered, files: UserFiles, notice: (StoreNotice) -> Void
    ) throws(StoreError) {
        for (userID, logged) in recovered.repeats {
            var record: UserRecord
            if let replayed = recovered.records[userID] {
                record = replayed
            } else {
                switch try files.read(userID) {
                case .record(let read):
                    record = read
                case .missing:
                    continue
                case .quarantined(let movedTo, let reason):
                    notice(.quarantined(path: files.path(for: userID), movedTo: movedTo, reason: reason))
                    recovered.schedules[userID] = nil
                    recovered.fires[userID] = nil
                    continue
                }
                // The record now in memory must carry what was fired from the row meanwhile.
                for change in recovered.fires[userID] ?? [] { record.apply(change) }
            }
            record.fold(logged)
            recovered.records[userID] = record
            recovered.schedules[userID] = record.schedule
        }
        recovered.repeats = [:]
    }

    /// The log's directory was `journal/` before it was `wal/` (easily confused with
    /// journald): a state directory from then is moved over once.
    static func migrateLogDirectory(in directory: String) throws(StoreError) {
        let old = directory + "/journal"
        let new = directory + "/" + walDirectoryName
        guard FileIO.exists(old), !FileIO.exists(new) else { return }
        guard rename(old, new) == 0 else { throw .io("rename", old) }
        try FileIO.fsyncDirectory(directory)
    }

    static let walDirectoryName = "wal"
}
