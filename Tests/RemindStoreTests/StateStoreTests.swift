import Foundation
import RemindCore
import RemindTesting
import Testing

@testable import RemindStore

#if canImport(Glibc)
    import Glibc
#endif

@Suite(.ownThread)
struct StateStoreTests {
    let start = Fixtures.date("2026-11-15T10:00:00Z")

    func report(
        _ location: LocationAuthorization, at offset: Int, notifications: NotificationAuthorization? = nil
    )
        -> PermissionReport
    {
        PermissionReport(
            location: location, notifications: notifications, observedAt: start.addingTimeInterval(TimeInterval(offset))
        )
    }

    /// A stored report is in the log before `report` returns: a crash right after loses
    /// nothing, though no user file was written yet.
    @Test func acknowledgedReportSurvivesCrashBeforeCheckpoint() async throws {
        let fixture = try StoreFixture()
        let store = try fixture.open()
        let userID = Fixtures.userID("crash")
        _ = try await store.storeReport(report(.whileInUse, at: 0), for: userID, receivedAt: start)
        #expect(!FileManager.default.fileExists(atPath: await store.userFilePath(userID)))
        let crashed = try fixture.crashCopy()
        defer { try? FileManager.default.removeItem(atPath: crashed) }
        let recovered = try fixture.open(crashed)
        let record = try await recovered.record(userID)
        #expect(record?.permissions?.location == .whileInUse)
        #expect(record?.openEpisode?.startedAt == start)
        await recovered.close()
        await store.close()
    }

    /// A stored batch is in the log before `storeReports` returns: a crash
    /// right after loses none of it, and the replay applies a user's changes in their order.
    @Test func acknowledgedBatchSurvivesCrashBeforeCheckpoint() async throws {
        let fixture = try StoreFixture()
        let store = try fixture.open()
        let users = (0..<50).map { Fixtures.userID("batch-\($0)") }
        var reports = users.map { (report: report(.whileInUse, at: 0), userID: $0) }
        reports += users.prefix(10).map { (report: report(.always, at: 5), userID: $0) }
        let results = try await store.storeReports(reports, receivedAt: start)
        #expect(results.count == 60)
        let crashed = try fixture.crashCopy()
        defer { try? FileManager.default.removeItem(atPath: crashed) }
        let recovered = try fixture.open(crashed)
        for (index, userID) in users.enumerated() {
            let record = try await recovered.record(userID)
            #expect(record?.permissions?.location == (index < 10 ? .always : .whileInUse), "\(userID)")
            #expect(record == (try await store.record(userID)), "\(userID)")
        }
        await recovered.close()
        await store.close()
    }

    /// Recovery from the snapshot plus the log gives exactly the state that reading every
    /// user file plus the log gives (docs/operations.md).
    @Test func snapshotRecoveryEqualsFullScan() async throws {
        let fixture = try StoreFixture()
        let policy = ReminderPolicy(
            configuration: PolicyConfiguration(
                notification: .init(showRecurringNotification: true, notificationTriggerDelay: 60)))
        let store = try fixture.open(policy: policy)
        let users = (0..<40).map { Fixtures.userID("user-\($0)") }
        let locations: [LocationAuthorization] = [.whileInUse, .always, .denied, .allowOnce]
        for (index, userID) in users.enumerated() {
            _ = try await store.storeReport(
                report(locations[index % 4], at: index), for: userID,
                receivedAt: start.addingTimeInterval(Double(index)))
        }
        _ = try await store.fireDue(now: start.addingTimeInterval(200))
        try await store.checkpoint(snapshot: true)
        // More changes after the snapshot live only in the log (and files not yet synced).
        for (index, userID) in users.enumerated() where index % 3 == 0 {
            _ = try await store.storeReport(
                report(locations[(index + 1) % 4], at: 300 + index), for: userID,
                receivedAt: start.addingTimeInterval(300 + Double(index)))
        }
        _ = try await store.fireDue(now: start.addingTimeInterval(500))
        let viaSnapshot = try fixture.crashCopy()
        let viaScan = try fixture.crashCopy()
        defer {
            try? FileManager.default.removeItem(atPath: viaSnapshot)
            try? FileManager.default.removeItem(atPath: viaScan)
        }
        try FileManager.default.removeItem(atPath: viaScan + "/snapshot.tsv")
        let fromSnapshot = try fixture.open(viaSnapshot, policy: policy)
        let fromScan = try fixture.open(viaScan, policy: policy)
        #expect(fromSnapshot.summary.fromSnapshot && !fromScan.summary.fromSnapshot)
        for userID in users {
            let expected = try await store.record(userID)
            #expect(try await fromSnapshot.record(userID) == expected, "\(userID)")
            #expect(try await fromScan.record(userID) == expected, "\(userID)")
            #expect(await fromSnapshot.schedule(of: userID) == expected?.schedule)
            #expect(await fromScan.schedule(of: userID) == expected?.schedule)
        }
        #expect(await fromSnapshot.statistics().pendingReminders == (await store.statistics().pendingReminders))
        #expect(await fromSnapshot.pendingEvents(for: "file") == (await store.pendingEvents(for: "file")))
        #expect(await fromScan.pendingEvents(for: "file") == (await store.pendingEvents(for: "file")))
        await fromSnapshot.close()
        await fromScan.close()
        await store.close()
    }

    /// A torn, unacknowledged tail of the log is cut off at start-up; every whole entry
    /// before it is kept.
    @Test func tornLogTailIsCut() async throws {
        let fixture = try StoreFixture()
        let store = try fixture.open()
        _ = try await store.storeReport(report(.denied, at: 0), for: Fixtures.userID("a"), receivedAt: start)
        let crashed = try fixture.crashCopy()
        defer { try? FileManager.default.removeItem(atPath: crashed) }
        let log = crashed + "/wal"
        let segment = try #require(FileManager.default.contentsOfDirectory(atPath: log).sorted().last)
        let handle = try #require(FileHandle(forWritingAtPath: log + "/" + segment))
        handle.seekToEndOfFile()
        handle.write(Data(#"{"op":"put","record":{"schemaVersion":1,"us"#.utf8))
        try handle.close()
        let recovered = try fixture.open(crashed)
        #expect(try await recovered.record(Fixtures.userID("a"))?.permissions?.location == .denied)
        #expect(fixture.notices.contains { if case .cutTornLogTail = $0 { true } else { false } })
        await recovered.close()
        await store.close()
    }

    /// A state directory from before the log moved to `wal/` (its log in `journal/`) opens
    /// with every acknowledged change, and the log directory is moved over.
    @Test func logInJournalDirectoryIsMigrated() async throws {
        let fixture = try StoreFixture()
        let store = try fixture.open()
        _ = try await store.storeReport(report(.denied, at: 0), for: Fixtures.userID("a"), receivedAt: start)
        let crashed = try fixture.crashCopy()
        defer { try? FileManager.default.removeItem(atPath: crashed) }
        try FileManager.default.moveItem(atPath: crashed + "/wal", toPath: crashed + "/journal")
        let recovered = try fixture.open(crashed)
        #expect(try await recovered.record(Fixtures.userID("a"))?.permissions?.location == .denied)
        #expect(!FileManager.default.fileExists(atPath: crashed + "/journal"))
        #expect(FileManager.default.fileExists(atPath: crashed + "/wal"))
        await recovered.close()
        await store.close()
    }

    /// Due reminders fire once, are recorded in the record, and wait in the outbox until
    /// the sink completes them; pending events survive a crash, completed ones do not return.
    @Test func firedEventsWaitInOutboxUntilCompleted() async throws {
        let fixture = try StoreFixture()
        let policy = ReminderPolicy(
            configuration: PolicyConfiguration(notification: .init(notificationTriggerDelay: 60)))
        let store = try fixture.open(policy: policy, sinks: ["file", "journal"])
        for name in ["x", "y"] {
            _ = try await store.storeReport(report(.whileInUse, at: 0), for: Fixtures.userID(name), receivedAt: start)
        }
        #expect(await store.nextWakeAt() == start.addingTimeInterval(60))
        #expect(try await store.fireDue(now: start.addingTimeInterval(59)).users == 0)
        let fired = try await store.fireDue(now: start.addingTimeInterval(60))
        #expect(fired.events.map(\.userID.rawValue).sorted() == ["x", "y"])
        #expect(try await store.fireDue(now: start.addingTimeInterval(3600)).users == 0)
        let first = try #require(await store.peekEvent(for: "file"))
        await store.complete(first.id, sink: "file")
        await store.complete(first.id, sink: "journal")
        #expect(await store.pendingEvents(for: "file") == 1)
        #expect(await store.pendingEvents(for: "journal") == 1)
        // The completion is logged lazily: a checkpoint makes it durable, as the next
        // commit would.
        try await store.checkpoint(snapshot: false)
        let crashed = try fixture.crashCopy()
        defer { try? FileManager.default.removeItem(atPath: crashed) }
        let recovered = try fixture.open(crashed, policy: policy, sinks: ["file", "journal"])
        #expect(await recovered.pendingEvents(for: "file") == 1)
        #expect(await recovered.peekEvent(for: "file")?.id != first.id)
        #expect(try await recovered.record(Fixtures.userID("x"))?.openEpisode?.deliveries.count == 1)
        await recovered.close()
        await store.close()
    }

    /// Forgetting a user removes their file and schedule, also across a restart.
    @Test func deleteRemovesFileAndSchedule() async throws {
        let fixture = try StoreFixture()
        var store: FileStateStore? = try fixture.open()
        let userID = Fixtures.userID("gone")
        _ = try await store!.storeReport(report(.denied, at: 0), for: userID, receivedAt: start)
        try await store!.checkpoint(snapshot: false)
        let path = await store!.userFilePath(userID)
        #expect(FileManager.default.fileExists(atPath: path))
        #expect(try await store!.delete(userID, at: Fixtures.date("2026-12-01T00:00:00Z")))
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(try await store!.delete(userID, at: Fixtures.date("2026-12-01T00:00:00Z")) == false)
        #expect(await store!.nextWakeAt() == nil)
        await store!.close()
        store = nil
        let reopened = try fixture.open()
        #expect(try await reopened.record(userID) == nil)
        #expect(await reopened.statistics().users == 0)
        await reopened.close()
    }

    /// A user file that does not decode is quarantined when read; other users are served.
    @Test func corruptFileIsQuarantinedOnRead() async throws {
        let fixture = try StoreFixture()
        var store: FileStateStore? = try fixture.open()
        for name in ["ok", "broken"] {
            _ = try await store!.storeReport(report(.always, at: 0), for: Fixtures.userID(name), receivedAt: start)
        }
        let path = await store!.userFilePath(Fixtures.userID("broken"))
        await store!.close()
        store = nil
        try Data([0xFF, 0x00, 0x13]).write(to: URL(fileURLWithPath: path))
        let reopened = try fixture.open()
        #expect(try await reopened.record(Fixtures.userID("broken")) == nil)
        #expect(try await reopened.record(Fixtures.userID("ok")) != nil)
        #expect(await reopened.statistics().quarantined == 1)
        #expect(await reopened.statistics().users == 1)
        await reopened.close()
    }

    /// A second store on the same directory is refused, naming the lock file.
    @Test func secondStoreIsRefused() async throws {
        let fixture = try StoreFixture()
        let store = try fixture.open()
        do {
            _ = try fixture.open()
            Issue.record("a second store opened")
        } catch let error as StoreError {
            #expect(error.isLocked)
            #expect(error.description.contains(fixture.directory + "/lock"))
        }
        await store.close()
    }
}

@Suite(.ownThread)
struct DeadLetterStoreTests {
    /// A dead letter is durable (it survives a crash), and replaying it puts the event back in
    /// its sink's queue, which also survives a crash, as does its absence from the list.
    @Test func deadLettersSurviveCrashesAndReplay() async throws {
        let fixture = try StoreFixture()
        let policy = ReminderPolicy(
            configuration: PolicyConfiguration(notification: .init(notificationTriggerDelay: 60)))
        let store = try fixture.open(policy: policy, sinks: ["file", "hook"])
        let start = Fixtures.date("2026-11-15T10:00:00Z")
        _ = try await store.storeReport(
            PermissionReport(location: .denied, observedAt: start), for: Fixtures.userID("d"), receivedAt: start)
        let event = try #require(try await store.fireDue(now: start.addingTimeInterval(60)).events.first)
        await store.complete(event.id, sink: "file")
        try await store.deadLetter(
            DeadLetterRecord(event: event, sink: "hook", attempts: 12, lastError: "HTTP 500", deadLetteredAt: start))
        await store.complete(event.id, sink: "hook")
        #expect(await store.pendingEvents(for: "hook") == 0)

        let crashed = try fixture.crashCopy()
        defer { try? FileManager.default.removeItem(atPath: crashed) }
        let recovered = try fixture.open(crashed, policy: policy, sinks: ["file", "hook"])
        #expect(await recovered.deadLetters().map(\.event.id) == [event.id])
        #expect(await recovered.deadLetters().first?.lastError == "HTTP 500")

        #expect(try await store.replayDeadLetters(ids: ["no-such-id"]) == 0)
        #expect(try await store.replayDeadLetters(ids: nil) == 1)
        #expect(await store.deadLetters().isEmpty)
        #expect(await store.peekEvent(for: "hook")?.id == event.id)
        #expect(await store.pendingEvents(for: "file") == 0)
        try await store.checkpoint(snapshot: true)
        let afterReplay = try fixture.crashCopy()
        defer { try? FileManager.default.removeItem(atPath: afterReplay) }
        let reopened = try fixture.open(afterReplay, policy: policy, sinks: ["file", "hook"])
        #expect(await reopened.deadLetters().isEmpty)
        #expect(await reopened.peekEvent(for: "hook")?.id == event.id)
        await reopened.close()
        await recovered.close()
        await store.close()
    }
}

/// Snapshot files and log entries carry checksums: damage is told apart from a crash, reported
/// with the file, kept in quarantine, and costs no acknowledged change that can be read.
@Suite(.ownThread)
struct DamagedStateTests {
    let start = Fixtures.date("2026-11-15T10:00:00Z")

    func damaged(_ notices: [StoreNotice]) -> [(path: String, movedTo: String, consequence: String)] {
        notices.compactMap {
            if case .damagedFile(let path, let movedTo, _, let consequence) = $0 {
                (path, movedTo, consequence)
            } else {
                nil
            }
        }
    }

    /// Overwrites `count` bytes in the middle of `path`.
    func scribble(_ path: String, count: Int = 48, at fraction: Double = 0.5) throws {
        let handle = try #require(FileHandle(forUpdatingAtPath: path))
        let size = handle.seekToEndOfFile()
        handle.seek(toFileOffset: UInt64(Double(size) * fraction))
        handle.write(Data(repeating: UInt8(ascii: "x"), count: count))
        try handle.close()
    }

    /// A snapshot whose checksum fails is quarantined and the files are read instead: the
    /// same users, the same schedules.
    @Test func damagedSnapshotFallsBackToTheFiles() async throws {
        let fixture = try StoreFixture()
        let store = try fixture.open()
        for index in 0..<30 {
            _ = try await store.storeReport(
                PermissionReport(location: .whileInUse, observedAt: start), for: Fixtures.userID("u\(index)"),
                receivedAt: start)
        }
        await store.close()
        try scribble(fixture.directory + "/snapshot.tsv")
        let reopened = try fixture.open()
        let found = damaged(fixture.notices)
        #expect(found.map(\.path) == [fixture.directory + "/snapshot.tsv"])
        #expect(found.first?.movedTo.hasPrefix(fixture.directory + "/quarantine/snapshot.tsv.") == true)
        #expect(found.first?.consequence.contains("read every user file") == true)
        #expect(reopened.summary.fromSnapshot == false)
        #expect(await reopened.statistics().users == 30)
        #expect(await reopened.statistics().quarantined == 1)
        await reopened.close()
    }

    /// A change that leaves every line well-formed (one user's conditions) is still caught by
    /// the checksum: the counts are never taken from a file that changed after it was written.
    @Test func wellFormedChangeInTheSnapshotFailsItsChecksum() async throws {
        let fixture = try StoreFixture()
        let store = try fixture.open()
        _ = try await store.storeReport(
            PermissionReport(location: .whileInUse, observedAt: start), for: Fixtures.userID("a"), receivedAt: start)
        await store.close()
        let path = fixture.directory + "/snapshot.tsv"
        var lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map(String.init)
        var user = lines[1].split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
        user[user.count - 1] = "63"
        lines[1] = user.joined(separator: "\t")
        try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        let reopened = try fixture.open()
        #expect(damaged(fixture.notices).map(\.path) == [path])
        #expect(!reopened.summary.fromSnapshot)
        #expect(await reopened.statistics().usersByConditions[ServiceConditions(rawValue: 63)] == 0)
        await reopened.close()
    }

    /// A damaged outbox file keeps the events that still decode and names how many lines did
    /// not.
    @Test func damagedOutboxKeepsWhatDecodes() async throws {
        let fixture = try StoreFixture()
        let policy = ReminderPolicy(
            configuration: PolicyConfiguration(notification: .init(notificationTriggerDelay: 60)))
        let store = try fixture.open(policy: policy)
        for index in 0..<20 {
            _ = try await store.storeReport(
                PermissionReport(location: .whileInUse, observedAt: start), for: Fixtures.userID("u\(index)"),
                receivedAt: start)
        }
        _ = try await store.fireDue(now: start.addingTimeInterval(60))
        #expect(await store.pendingEvents(for: "file") == 20)
        await store.close()
        // One event line (u5's) is broken in its middle; the others stay whole.
        let outbox = fixture.directory + "/outbox.tsv"
        let text = try String(contentsOfFile: outbox, encoding: .utf8)
        let line = try #require(text.range(of: #""id":"u5/"#))
        try scribble(
            outbox, count: 8,
            at: Double(text.utf8.distance(from: text.startIndex, to: line.upperBound)) / Double(text.utf8.count))
        let reopened = try fixture.open(policy: policy)
        let found = damaged(fixture.notices)
        #expect(found.map(\.path) == [fixture.directory + "/outbox.tsv"])
        #expect(found.first?.consequence.contains("1 lines could not be read") == true)
        let pending = await reopened.pendingEvents(for: "file")
        #expect(pending == 19)
        await reopened.close()
    }

    /// An entry damaged in the middle of the log (good entries after it) is not a torn tail:
    /// it is skipped and reported, nothing is cut, and every later entry is replayed.
    @Test func damageInsideTheLogSkipsOnlyTheDamagedEntry() async throws {
        let fixture = try StoreFixture()
        let store = try fixture.open()
        for (index, location) in [LocationAuthorization.denied, .whileInUse, .allowOnce].enumerated() {
            _ = try await store.storeReport(
                PermissionReport(location: location, observedAt: start), for: Fixtures.userID("u\(index)"),
                receivedAt: start)
        }
        let crashed = try fixture.crashCopy()
        defer { try? FileManager.default.removeItem(atPath: crashed) }
        let log = crashed + "/wal"
        let segment = log + "/" + (try #require(FileManager.default.contentsOfDirectory(atPath: log).sorted().last))
        let size = try #require(try FileManager.default.attributesOfItem(atPath: segment)[.size] as? Int)
        // Inside the second of three entries: a letter of its JSON changed, still valid JSON.
        let lines = try String(contentsOfFile: segment, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 3)
        let second = lines[1]
        let offset = lines[0].utf8.count + 1 + second.utf8.count / 3
        let handle = try #require(FileHandle(forUpdatingAtPath: segment))
        handle.seek(toFileOffset: UInt64(offset))
        handle.write(Data("~".utf8))
        try handle.close()
        let recovered = try fixture.open(crashed)
        #expect(try await recovered.record(Fixtures.userID("u0"))?.permissions?.location == .denied)
        #expect(try await recovered.record(Fixtures.userID("u2"))?.permissions?.location == .allowOnce)
        #expect(try await recovered.record(Fixtures.userID("u1")) == nil)
        #expect(!fixture.notices.contains { if case .cutTornLogTail = $0 { true } else { false } })
        #expect(damaged(fixture.notices).map(\.path) == [segment])
        #expect(try FileManager.default.attributesOfItem(atPath: segment)[.size] as? Int == size)
        await recovered.close()
        await store.close()
    }

    /// A snapshot of an older format (1, before the checksum; 2, before the service conditions;
    /// 3, before the episode group; 4, before the locale) is not refused: its user lines lack
    /// what the schedules need now, so start-up reads the user files instead, quarantines
    /// nothing, and the counts and the locale are right.
    @Test(arguments: ["1", "2", "3", "4"])
    func olderSnapshotFormatsFallBackToTheFiles(_ format: String) async throws {
        let fixture = try StoreFixture()
        let store = try fixture.open()
        _ = try await store.storeReport(
            PermissionReport(location: .whileInUse, observedAt: start, locale: "de-CH", motion: .authorized),
            for: Fixtures.userID("a"), receivedAt: start)
        await store.close()
        let path = fixture.directory + "/snapshot.tsv"
        var lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").map(String.init)
        lines[0] = lines[0].replacingOccurrences(of: "\t\(Snapshot.format)\t", with: "\t\(format)\t")
        // The user line as formats 1 and 2 wrote it (a reason, no conditions, no episode group,
        // reason and locale), as format 3 did (no episode group, reason and locale), or as
        // format 4 did (no locale).
        var user = lines[1].split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
        if format == "4" {
            user.removeLast(1)
        } else if format == "3" {
            user.removeLast(3)
        } else {
            user[2] = "locationNotAuthorizedAlways"
            user.removeLast(4)
        }
        lines[1] = user.joined(separator: "\t")
        if format == "1" {
            lines[lines.count - 1] = lines[lines.count - 1].split(separator: "\t").prefix(2).joined(separator: "\t")
        } else {
            let body = Array((lines.dropLast().joined(separator: "\n") + "\n").utf8)
            lines[lines.count - 1] = "END\t1\t" + String(decoding: Checksum.hex(Checksum.of(body[...])), as: UTF8.self)
        }
        try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        let reopened = try fixture.open()
        #expect(!reopened.summary.fromSnapshot)
        #expect(damaged(fixture.notices).isEmpty)
        #expect(try await reopened.record(Fixtures.userID("a"))?.permissions?.motion == .authorized)
        #expect(await reopened.schedule(of: Fixtures.userID("a"))?.locale == "de-CH")
        let counted = await reopened.statistics().usersByConditions
        #expect(counted[ServiceConditions([.locationServices, .location, .precise, .motion])] == 1)
        await reopened.close()
    }
}
