import Foundation
import RemindCore
import RemindTesting
import Testing

@testable import RemindStore

/// A change of a known user is logged as a `RecordDelta`: a line the size of the
/// change, replayed onto the revision in the user's file, skipped where the file holds it.
@Suite(.ownThread)
struct ChangeLogTests {
    let start = Fixtures.date("2026-11-15T10:00:00Z")
    let userID = Fixtures.userID("long-history")

    func report(_ index: Int) -> PermissionReport {
        PermissionReport(
            location: index.isMultiple(of: 2) ? .whileInUse : .always, notifications: .authorized,
            observedAt: start + .seconds(60 * index))
    }

    /// Reports `indexes` in order, a minute apart.
    func send(_ indexes: Range<Int>, to store: FileStateStore) async throws {
        for index in indexes {
            _ = try await store.storeReport(report(index), for: userID, receivedAt: start + .seconds(60 * index))
        }
    }

    /// Every `change` line in the log, decoded.
    func loggedChanges(_ directory: String) throws -> [(delta: RecordDelta, bytes: Int)] {
        let wal = directory + "/wal"
        var changes: [(RecordDelta, Int)] = []
        for name in try FileManager.default.contentsOfDirectory(atPath: wal).sorted() {
            let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: wal + "/" + name)))
            for line in bytes.split(separator: UInt8(ascii: "\n")) {
                guard let verified = Checksum.verified(line),
                    case .change(let delta, _, _)? = LogEntry(line: verified)
                else { continue }
                changes.append((delta, line.count))
            }
        }
        return changes
    }

    /// Forty changes and a snapshot (the files hold revision 40, the log nothing), then five
    /// more: each is logged as a line a fraction of the record's size, and a crash replays them
    /// onto the file's revision; a checkpoint before the crash (the files hold revision 45 and
    /// the log still the five) makes the replay skip them. Either way the recovered record is
    /// the one the store had.
    @Test(arguments: [false, true])
    func aCrashReplaysTheChangesOntoTheFilesRevision(checkpointFirst: Bool) async throws {
        let fixture = try StoreFixture()
        let store = try fixture.open()
        try await send(0..<40, to: store)
        try await store.checkpoint(snapshot: true)
        #expect(try loggedChanges(fixture.directory).isEmpty)
        try await send(40..<45, to: store)
        let live = try #require(try await store.record(userID))
        #expect(live.revision == 45 && live.history.count == 45)
        let changes = try loggedChanges(fixture.directory)
        #expect(changes.map(\.delta.revision) == Array(41...45))
        let whole = live.jsonBytes.count
        for (delta, bytes) in changes {
            #expect(bytes * 8 < whole, "a change of \(bytes) B beside a record of \(whole) B")
            #expect(delta.keep.count >= 38)
        }
        if checkpointFirst { try await store.checkpoint(snapshot: false) }
        let crashed = try fixture.crashCopy()
        defer { try? FileManager.default.removeItem(atPath: crashed) }
        let recovered = try fixture.open(crashed)
        #expect(try await recovered.record(userID) == live)
        #expect(fixture.notices.allSatisfy { if case .damagedFile = $0 { false } else { true } })
        // The next change follows the recovered revision.
        _ = try await recovered.storeReport(report(45), for: userID, receivedAt: start + .seconds(60 * 45))
        #expect(try await recovered.record(userID)?.revision == 46)
        await recovered.close()
        await store.close()
    }

    /// Repeats answered from memory, then a change that folds them in first (as the daemon's
    /// does), then a crash before any checkpoint: the change's line carries the repeats
    /// (counts, observation times), so the recovered record is the live one although the file
    /// and the log hold no repeat of their own.
    @Test func aChangeCarriesTheRepeatsBeforeIt() async throws {
        let fixture = try StoreFixture()
        let store = try fixture.open()
        try await send(0..<11, to: store)
        try await store.checkpoint(snapshot: true)
        // Index 10 is `whileInUse`: the same state, observed later, is a repeat.
        var repeats = PendingRepeats()
        for offset in 1...5 {
            let at = start + .seconds(600 + 10 * offset)
            let repeated = PermissionReport(location: .whileInUse, notifications: .authorized, observedAt: at)
            #expect(
                RepeatCriterion(try #require(try await store.record(userID)))?.isRepeat(repeated, receivedAt: at)
                    == true)
            repeats.add(repeated, receivedAt: at)
        }
        _ = try await store.storeReport(report(11), for: userID, receivedAt: start + .seconds(660), after: repeats)
        let live = try #require(try await store.record(userID))
        #expect(live.reportCount == 17 && live.history[1].laterObservations.count > 0)
        #expect(try loggedChanges(fixture.directory).map(\.delta.revision) == [12])
        let crashed = try fixture.crashCopy()
        defer { try? FileManager.default.removeItem(atPath: crashed) }
        let recovered = try fixture.open(crashed)
        #expect(try await recovered.record(userID) == live)
        await recovered.close()
        await store.close()
    }

    /// A user file older than the log's changes expect (put back from a backup, say) is not
    /// silently patched: the change that does not follow its revision is reported and skipped,
    /// and the store opens with the file's revision.
    @Test func aChangeThatDoesNotFollowTheFileIsReported() async throws {
        let fixture = try StoreFixture()
        let store = try fixture.open()
        try await send(0..<10, to: store)
        try await store.checkpoint(snapshot: true)
        let path = store.userFilePath(userID)
        let older = try Data(contentsOf: URL(fileURLWithPath: path))
        try await send(10..<13, to: store)
        try await store.checkpoint(snapshot: true)
        _ = try await store.storeReport(report(13), for: userID, receivedAt: start + .seconds(60 * 13))
        #expect(try loggedChanges(fixture.directory).map(\.delta.revision) == [14])
        let crashed = try fixture.crashCopy()
        defer { try? FileManager.default.removeItem(atPath: crashed) }
        try older.write(to: URL(fileURLWithPath: crashed + path.dropFirst(fixture.directory.count)))
        let recovered = try fixture.open(crashed)
        #expect(try await recovered.record(userID)?.revision == 10)
        let reported = fixture.notices.contains {
            if case .damagedFile(_, _, let reason, _) = $0 {
                reason.contains("revision 14 does not follow revision 10")
            } else {
                false
            }
        }
        #expect(reported, "\(fixture.notices)")
        await recovered.close()
        await store.close()
    }

    /// A user deleted and reported again within the log's span: the old user's changes are
    /// replayed before the delete against the new user's file, which they do not follow. That
    /// is no damage: nothing is reported, and the new user comes back as they were.
    @Test func aDeletedAndNewUserOfTheSameIDIsNoDamage() async throws {
        let fixture = try StoreFixture()
        let store = try fixture.open()
        try await send(0..<10, to: store)
        try await store.checkpoint(snapshot: true)
        try await send(10..<13, to: store)
        #expect(try await store.delete(userID, at: start + .seconds(60 * 13)))
        try await send(14..<16, to: store)
        // The new user's file (revision 2) is written; the log still holds the old one's 11 to 13,
        // and the new one's first two changes (the first from nothing, replayed once the
        // delete took the file away again).
        try await store.checkpoint(snapshot: false)
        #expect(try loggedChanges(fixture.directory).map(\.delta.revision) == [11, 12, 13, 1, 2])
        let live = try #require(try await store.record(userID))
        #expect(live.revision == 2)
        let crashed = try fixture.crashCopy()
        defer { try? FileManager.default.removeItem(atPath: crashed) }
        let recovered = try fixture.open(crashed)
        #expect(try await recovered.record(userID) == live)
        #expect(fixture.notices.allSatisfy { if case .damagedFile = $0 { false } else { true } }, "\(fixture.notices)")
        await recovered.close()
        await store.close()
    }
}
