import Foundation
import RemindAPI
import RemindCore
import RemindTesting
import Testing

@testable import RemindStore

/// Repeated reports answered from memory (issue 17): the answer is the record's status, no
/// log record is written, and what a crash loses is exactly the repeats' counters since the
/// last checkpoint.
struct RepeatPathTests {
    let start = Fixtures.date("2026-11-15T10:00:00Z")

    func report(_ location: LocationAuthorization, at offset: TimeInterval) -> PermissionReport {
        PermissionReport(location: location, notifications: .authorized, observedAt: start.addingTimeInterval(offset))
    }

    func open(_ fixture: StoreFixture, _ directory: String? = nil, cachedRecords: Int = 10_000) throws -> FileStateStore
    {
        try FileStateStore(
            options: .init(directory: directory ?? fixture.directory, sinks: ["file"], cachedRecords: cachedRecords),
            policy: ReminderPolicy(), now: start, notice: { _ in })
    }

    func status(_ store: FileStateStore, _ userID: UserID) async throws -> [UInt8]? {
        guard let record = try await store.record(userID) else { return nil }
        return UserStatus(record: record, policy: await store.policy, daemonStartedAt: store.daemonStartedAt)?.jsonBytes
    }

    func logBytes(_ directory: String) throws -> Int {
        let wal = directory + "/" + Recovery.walDirectoryName
        return try FileManager.default.contentsOfDirectory(atPath: wal).reduce(0) { total, name in
            let attributes = try FileManager.default.attributesOfItem(atPath: wal + "/" + name)
            return total + ((attributes[.size] as? Int) ?? 0)
        }
    }

    /// Each repeat's answer is byte for byte the status of the record as the store then reads
    /// it, while the log does not grow.
    @Test func repeatIsAnsweredAsTheRecordSaysWithoutALogRecord() async throws {
        let fixture = try StoreFixture()
        let store = try open(fixture)
        let userID = Fixtures.userID("repeater")
        let first = try await store.answerReport(report(.whileInUse, at: 0), for: userID, receivedAt: start)
        #expect(first.changed && first.openedGroup == Experiment.defaultGroup)
        #expect(first.status == (try await status(store, userID)))
        let logged = try logBytes(fixture.directory)
        for index in 1...6 {
            let at = TimeInterval(index * 10)
            let answer = try await store.answerReport(
                report(.whileInUse, at: at), for: userID, receivedAt: start.addingTimeInterval(at + 1))
            #expect(!answer.changed && answer.transitions.isEmpty)
            // Reading the record folds the repeats in: the answer must say what it then says.
            if index % 2 == 0 { #expect(answer.status == (try await status(store, userID))) }
        }
        #expect(try logBytes(fixture.directory) == logged)
        let record = try #require(try await store.record(userID))
        #expect(record.reportCount == 7 && record.lastReportAt == start.addingTimeInterval(61))
        #expect(record.observedAt == start.addingTimeInterval(60))
        #expect(await store.schedule(of: userID)?.lastReportAt == start.addingTimeInterval(61))
        await store.close()
    }

    /// What a crash may lose of a repeat: its `reportCount` and `lastReportAt` (with the run's
    /// observation times) since the last checkpoint, nothing else. A checkpoint folds the
    /// repeats into the user file, reading it if the record is not in memory; a change carries
    /// the repeats before it into its log record. One exception, as before issue 17: while the
    /// user's last change is still in the log (until a snapshot covers it, at most
    /// `snapshotInterval`), the replay restores that change's record, counters included.
    @Test(arguments: [10_000, 0], [true, false])
    func crashLosesOnlyTheRepeatCountersSinceTheLastCheckpoint(cachedRecords: Int, snapshot: Bool) async throws {
        let fixture = try StoreFixture()
        let store = try open(fixture, cachedRecords: cachedRecords)
        let (folded, carried, other) = (Fixtures.userID("folded"), Fixtures.userID("carried"), Fixtures.userID("other"))
        func send(_ location: LocationAuthorization, _ userID: UserID, at offset: TimeInterval) async throws -> Bool {
            try await store.answerReport(
                report(location, at: offset), for: userID, receivedAt: start.addingTimeInterval(offset)
            ).changed
        }
        #expect(try await send(.whileInUse, folded, at: 0))
        #expect(try await send(.whileInUse, carried, at: 0))
        try await store.checkpoint(snapshot: false)
        // With no cache, this change evicts the others' (clean) records: the fold must read them.
        #expect(try await send(.always, other, at: 1))
        for offset in [10.0, 20, 30] {
            #expect(try await !send(.whileInUse, folded, at: offset))
            #expect(try await !send(.whileInUse, carried, at: offset))
        }
        // A change after repeats: durable, and with it the repeats before it.
        #expect(try await send(.always, carried, at: 35))
        try await store.checkpoint(snapshot: snapshot)
        for offset in [40.0, 50] {
            #expect(try await !send(.whileInUse, folded, at: offset))
            #expect(try await !send(.always, carried, at: offset))
        }
        #expect(try await store.record(folded)?.reportCount == 6)
        #expect(try await store.record(carried)?.reportCount == 7)

        let crashed = try fixture.crashCopy()
        defer { try? FileManager.default.removeItem(atPath: crashed) }
        let recovered = try open(fixture, crashed, cachedRecords: cachedRecords)
        let foldedRecord = try #require(try await recovered.record(folded))
        // Without a snapshot the log still holds the first change, and replay restores it.
        let kept: TimeInterval = snapshot ? 30 : 0
        #expect(foldedRecord.reportCount == (snapshot ? 4 : 1))
        #expect(foldedRecord.lastReportAt == start.addingTimeInterval(kept))
        #expect(foldedRecord.observedAt == start.addingTimeInterval(kept))
        #expect(foldedRecord.permissions?.location == .whileInUse && foldedRecord.openEpisode?.startedAt == start)
        let carriedRecord = try #require(try await recovered.record(carried))
        #expect(carriedRecord.reportCount == 5)
        #expect(carriedRecord.lastReportAt == start.addingTimeInterval(35))
        #expect(carriedRecord.permissions?.location == .always && carriedRecord.openEpisode == nil)
        await recovered.close()
        await store.close()
    }

    /// A new policy (a reload) stops repeats from being answered from memory until the user's
    /// next full report: it may reconcile their episodes differently.
    @Test func newPolicyTakesRepeatsTheFullWay() async throws {
        let fixture = try StoreFixture()
        let store = try open(fixture)
        let userID = Fixtures.userID("reloaded")
        _ = try await store.answerReport(report(.whileInUse, at: 0), for: userID, receivedAt: start)
        _ = try await store.answerReport(
            report(.whileInUse, at: 5), for: userID, receivedAt: start.addingTimeInterval(5))
        // Location errors no longer remind: the open episode closes at the next report.
        var configuration = PolicyConfiguration()
        configuration.notification.remindFor = PermissionErrorSet([.motionNotAuthorized])
        await store.setPolicy(ReminderPolicy(configuration: configuration))
        let answer = try await store.answerReport(
            report(.whileInUse, at: 10), for: userID, receivedAt: start.addingTimeInterval(10))
        #expect(answer.changed && answer.outcomes.count == 1)
        let record = try #require(try await store.record(userID))
        #expect(record.openEpisode == nil && record.reportCount == 3)
        await store.close()
    }
}
