import Foundation
import RemindAPI
import RemindCore
import RemindTesting
import Testing

@testable import RemindDaemon
@testable import RemindStore

/// Repeated reports answered from memory by the daemon's `RepeatCache` over the files backend:
/// the answer is the record's status, no log record is written, and what a crash loses is
/// exactly the repeats' counters since the last checkpoint.
@Suite(.ownThread)
struct RepeatPathTests {
    let start = Fixtures.date("2026-11-15T10:00:00Z")

    /// A state directory of its own, removed at the end.
    final class Directory {
        let path: String

        init() throws {
            var template = Array("/tmp/remindd-repeats-XXXXXX".utf8CString)
            guard let made = mkdtemp(&template) else { throw POSIXError(.EIO) }
            path = String(cString: made)
        }

        deinit { try? FileManager.default.removeItem(atPath: path) }

        /// The directory as it is on disk now: what a `kill -9` at this moment leaves.
        func crashCopy() throws -> String {
            let copy = path + "-crash-\(UUID().uuidString.prefix(8))"
            let status = try SpawnedProcess.run("/bin/cp", ["-a", path, copy]).status
            precondition(status == 0, "cp failed")
            return copy
        }
    }

    /// The store with the daemon's cache in front, as the report route and the store's service
    /// use them.
    struct Daemon {
        let store: FileStateStore
        let cache: RepeatCache

        init(_ store: FileStateStore) {
            self.store = store
            cache = RepeatCache(daemonStartedAt: store.daemonStartedAt)
        }

        struct Answer {
            var outcome: ReportOutcome?
            var status: [UInt8]?
            var changed: Bool { outcome?.changed ?? false }
            var transitions: [EpisodeTransition] { outcome?.transitions ?? [] }
            var outcomes: [EpisodeOutcome] { outcome?.outcomes ?? [] }
        }

        /// A report as the report route answers it: a repeat from memory, else stored.
        func send(_ report: PermissionReport, for userID: UserID, receivedAt: Date) async throws -> Answer {
            if let status = cache.answer(report, of: userID, receivedAt: receivedAt) {
                return Answer(outcome: nil, status: status)
            }
            let stored = try await ReportStorage(store: store, repeats: cache).store(
                report, for: userID, receivedAt: receivedAt)
            return Answer(outcome: stored.outcome, status: stored.answer)
        }

        /// The store's service's checkpoint: the repeats handed over first.
        func checkpoint(snapshot: Bool, foldLimit: Int = FileStateStore.foldLimit) async throws {
            try await cache.flush(into: store)
            try await store.checkpoint(snapshot: snapshot, foldLimit: foldLimit)
        }

        /// A read of the user as the API makes it.
        func record(_ userID: UserID) async throws -> UserRecord? {
            try await cache.flush(userID, into: store)
            return try await store.record(userID)
        }

        func close() async {
            try? await cache.flush(into: store)
            await store.close()
        }
    }

    func report(_ location: LocationAuthorization, at offset: TimeInterval) -> PermissionReport {
        PermissionReport(location: location, notifications: .authorized, observedAt: start.addingTimeInterval(offset))
    }

    func open(_ directory: String, cachedRecords: Int = 10_000) throws -> Daemon {
        Daemon(
            try FileStateStore(
                options: .init(directory: directory, sinks: ["file"], cachedRecords: cachedRecords),
                policy: ReminderPolicy(), now: start, notice: { _ in }))
    }

    func status(_ daemon: Daemon, _ userID: UserID) async throws -> [UInt8]? {
        guard let record = try await daemon.record(userID) else { return nil }
        // As a report's answer carries it: with no ask (`inApp` is off here).
        return UserStatus(
            record: record, policy: await daemon.store.policy, daemonStartedAt: daemon.store.daemonStartedAt)
            .map { ReportAnswerBody.bytes(status: $0.jsonBytes, ask: nil) }
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
        let fixture = try Directory()
        let store = try open(fixture.path)
        let userID = Fixtures.userID("repeater")
        let first = try await store.send(report(.whileInUse, at: 0), for: userID, receivedAt: start)
        #expect(first.changed && first.outcome?.record.openEpisode?.group == Experiment.defaultGroup)
        #expect(first.status == (try await status(store, userID)))
        let logged = try logBytes(fixture.path)
        for index in 1...6 {
            let at = TimeInterval(index * 10)
            let answer = try await store.send(
                report(.whileInUse, at: at), for: userID, receivedAt: start.addingTimeInterval(at + 1))
            #expect(!answer.changed && answer.transitions.isEmpty)
            // Reading the record folds the repeats in: the answer must say what it then says.
            if index % 2 == 0 { #expect(answer.status == (try await status(store, userID))) }
        }
        #expect(try logBytes(fixture.path) == logged)
        let record = try #require(try await store.record(userID))
        #expect(record.reportCount == 7 && record.lastReportAt == start.addingTimeInterval(61))
        #expect(record.observedAt == start.addingTimeInterval(60))
        #expect(await store.store.schedule(of: userID)?.lastReportAt == start.addingTimeInterval(61))
        await store.close()
    }

    /// What a crash may lose of a repeat: its `reportCount` and `lastReportAt` (with the run's
    /// observation times) since the last checkpoint, nothing else. A checkpoint logs the
    /// repeats and folds them into the user file, reading it if the record is not in memory; a
    /// change carries the repeats before it into its log record. (Before the repeats were
    /// logged, a crash while the user's last change was still in the log restored that
    /// change's counters: replay put the older record over the folded file.)
    @Test(arguments: [10_000, 0], [true, false])
    func crashLosesOnlyTheRepeatCountersSinceTheLastCheckpoint(cachedRecords: Int, snapshot: Bool) async throws {
        let fixture = try Directory()
        let store = try open(fixture.path, cachedRecords: cachedRecords)
        let (folded, carried, other) = (Fixtures.userID("folded"), Fixtures.userID("carried"), Fixtures.userID("other"))
        func send(_ location: LocationAuthorization, _ userID: UserID, at offset: TimeInterval) async throws -> Bool {
            try await store.send(
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
        let recovered = try open(crashed, cachedRecords: cachedRecords)
        let foldedRecord = try #require(try await recovered.record(folded))
        #expect(foldedRecord.reportCount == 4)
        #expect(foldedRecord.lastReportAt == start.addingTimeInterval(30))
        #expect(foldedRecord.observedAt == start.addingTimeInterval(30))
        #expect(foldedRecord.permissions?.location == .whileInUse && foldedRecord.openEpisode?.startedAt == start)
        let carriedRecord = try #require(try await recovered.record(carried))
        #expect(carriedRecord.reportCount == 5)
        #expect(carriedRecord.lastReportAt == start.addingTimeInterval(35))
        #expect(carriedRecord.permissions?.location == .always && carriedRecord.openEpisode == nil)
        await recovered.close()
        await store.close()
    }

    /// Repeats a checkpoint logged but did not fold (more users were pending than it folds)
    /// survive a crash, before and after a snapshot deleted the segment that first held them,
    /// while the user file still says what it said; a clean stop folds them all into the files.
    @Test(arguments: [10_000, 0])
    func loggedRepeatsOutliveTheSegmentsAndReachTheFileAtAStop(cachedRecords: Int) async throws {
        let fixture = try Directory()
        let store = try open(fixture.path, cachedRecords: cachedRecords)
        let users = (0..<3).map { Fixtures.userID("logged-\($0)") }
        func send(_ userID: UserID, at offset: TimeInterval) async throws -> Bool {
            try await store.send(
                report(.whileInUse, at: offset), for: userID, receivedAt: start.addingTimeInterval(offset)
            ).changed
        }
        func fileCount(_ directory: String, _ userID: UserID) throws -> Int {
            let path = directory + store.store.userFilePath(userID).dropFirst(fixture.path.count)
            return try UserRecord(json: Array(try Data(contentsOf: URL(fileURLWithPath: path)))).reportCount
        }
        func expectRecovered(_ expected: [(count: Int, last: TimeInterval)]) async throws {
            let crashed = try fixture.crashCopy()
            defer { try? FileManager.default.removeItem(atPath: crashed) }
            let recovered = try open(crashed, cachedRecords: cachedRecords)
            for (userID, (count, last)) in zip(users, expected) {
                let record = try #require(try await recovered.record(userID))
                #expect(record.reportCount == count && record.lastReportAt == start.addingTimeInterval(last))
            }
            await recovered.close()
        }
        for userID in users { #expect(try await send(userID, at: 0)) }
        try await store.checkpoint(snapshot: false)
        let logged = try logBytes(fixture.path)
        for offset in [10.0, 20] {
            for userID in users { #expect(try await !send(userID, at: offset)) }
        }
        try await store.checkpoint(snapshot: false, foldLimit: 0)
        #expect(try logBytes(fixture.path) > logged)
        for userID in users { #expect(try fileCount(fixture.path, userID) == 1) }
        try await expectRecovered([(3, 20), (3, 20), (3, 20)])
        // The snapshot deletes the segments holding the repeats, after logging them again.
        try await store.checkpoint(snapshot: true, foldLimit: 1)
        #expect(try await !send(users[0], at: 30))
        try await store.checkpoint(snapshot: true, foldLimit: 0)
        let counts = try users.map { try fileCount(fixture.path, $0) }
        #expect(counts.sorted() == [1, 1, 3])
        try await expectRecovered([(4, 30), (3, 20), (3, 20)])
        await store.close()
        for userID in users.dropFirst() { #expect(try fileCount(fixture.path, userID) == 3) }
        #expect(try fileCount(fixture.path, users[0]) == 4)
    }

    /// A new policy (a reload) stops repeats from being answered from memory until the user's
    /// next full report: it may reconcile their episodes differently.
    @Test func newPolicyTakesRepeatsTheFullWay() async throws {
        let fixture = try Directory()
        let store = try open(fixture.path)
        let userID = Fixtures.userID("reloaded")
        _ = try await store.send(report(.whileInUse, at: 0), for: userID, receivedAt: start)
        _ = try await store.send(
            report(.whileInUse, at: 5), for: userID, receivedAt: start.addingTimeInterval(5))
        // Location errors no longer remind: the open episode closes at the next report.
        var configuration = PolicyConfiguration()
        configuration.notification.remindFor = PermissionErrorSet([.motionNotAuthorized])
        await store.store.setPolicy(ReminderPolicy(configuration: configuration))
        store.cache.invalidateAll()
        let answer = try await store.send(
            report(.whileInUse, at: 10), for: userID, receivedAt: start.addingTimeInterval(10))
        #expect(answer.changed && answer.outcomes.count == 1)
        let record = try #require(try await store.record(userID))
        #expect(record.openEpisode == nil && record.reportCount == 3)
        await store.close()
    }
}
