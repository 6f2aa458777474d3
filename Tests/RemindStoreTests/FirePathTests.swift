import Foundation
import RemindAPI
import RemindCore
import RemindTesting
import Testing

@testable import RemindStore

/// Due users whose records are not in memory are fired from their schedule rows:
/// the events and records are exactly what firing the records gives, the user file catches up
/// at a checkpoint, and a crash at any point neither loses a delivery nor sends one twice.
@Suite(.ownThread)
struct FirePathTests {
    let start = Fixtures.date("2026-11-15T10:00:00Z")
    let policy = ReminderPolicy(
        configuration: PolicyConfiguration(
            notification: .init(
                showRecurringNotification: true, notificationTriggerDelay: 60,
                localizations: ["de": .init(notificationTitle: "Standort", notificationDescription: "Bitte immer")])))
    let german = Fixtures.userID("german")
    let plain = Fixtures.userID("plain")
    let muted = Fixtures.userID("muted")

    func open(_ directory: String, cachedRecords: Int) throws -> FileStateStore {
        try FileStateStore(
            options: .init(
                directory: directory, sinks: ["file"], cachedRecords: cachedRecords), policy: policy,
            now: start, notice: { _ in })
    }

    /// The user's file as it is on disk in `directory`.
    func file(_ store: FileStateStore, _ userID: UserID, in directory: String) throws -> UserRecord {
        let path = directory + store.userFilePath(userID).dropFirst(store.directory.count)
        return try UserRecord(json: Array(try Data(contentsOf: URL(fileURLWithPath: path))))
    }

    /// Three users with an episode (one with a German locale, one with notifications off), whose
    /// files are written; with no cache, a fourth user's report then evicts their records.
    func prepare(_ store: FileStateStore) async throws {
        let reports = [
            (
                german,
                PermissionReport(location: .whileInUse, notifications: .authorized, observedAt: start, locale: "de-CH")
            ),
            (plain, PermissionReport(location: .whileInUse, notifications: .authorized, observedAt: start)),
            (muted, PermissionReport(location: .whileInUse, notifications: .denied, observedAt: start)),
        ]
        for (userID, report) in reports { _ = try await store.storeReport(report, for: userID, receivedAt: start) }
        try await store.checkpoint(snapshot: false)
        _ = try await store.storeReport(
            PermissionReport(location: .always, observedAt: start), for: Fixtures.userID("evictor"), receivedAt: start)
    }

    /// The same users fired from their rows (no cache) and from their records (all cached) give
    /// the same events, byte for byte, and the same records; the files of the row-fired users
    /// say nothing of the fire until a checkpoint folds it in, and the next reminder of the
    /// series is fired from the row again.
    @Test func firingFromTheRowEqualsFiringTheRecord() async throws {
        let rowFixture = try StoreFixture()
        let recordFixture = try StoreFixture()
        let fromRows = try open(rowFixture.directory, cachedRecords: 0)
        let fromRecords = try open(recordFixture.directory, cachedRecords: 10_000)
        try await prepare(fromRows)
        try await prepare(fromRecords)
        let due = start.addingTimeInterval(60)
        let rowFired = try await fromRows.fireDue(now: due, limit: 100)
        let recordFired = try await fromRecords.fireDue(now: due, limit: 100)
        #expect(rowFired.events.map(\.bytes) == recordFired.events.map(\.bytes))
        #expect(rowFired.events.map(\.userID) == [german, plain])
        #expect(rowFired.events.first?.json.contains("Standort") == true)
        #expect(rowFired.suppressed == [muted] && recordFired.suppressed == [muted])
        #expect(rowFired.users == 3)
        #expect(await fromRows.pendingFires.count == 3)
        for userID in [german, plain, muted] {
            #expect(try file(fromRows, userID, in: rowFixture.directory).openEpisode?.deliveries.isEmpty == true)
            #expect(try file(fromRows, userID, in: rowFixture.directory).openEpisode?.isSuppressed == false)
        }
        try await fromRows.checkpoint(snapshot: false)
        #expect(await fromRows.pendingFires.isEmpty)
        for userID in [german, plain, muted] {
            let folded = try file(fromRows, userID, in: rowFixture.directory)
            #expect(folded == (try await fromRecords.record(userID)))
            #expect(await fromRows.schedule(of: userID) == folded.schedule)
        }
        // With no cache, the next reminder is fired from the row again (the fold wrote the file
        // without keeping the record): sequence 2, equal to the record path's.
        _ = try await fromRows.storeReport(
            PermissionReport(location: .always, observedAt: start), for: Fixtures.userID("evictor-2"),
            receivedAt: start)
        let next = start.addingTimeInterval(120)
        let rowSecond = try await fromRows.fireDue(now: next, limit: 100)
        let recordSecond = try await fromRecords.fireDue(now: next, limit: 100)
        #expect(rowSecond.events.map(\.bytes) == recordSecond.events.map(\.bytes))
        #expect(rowSecond.events.count == 2 && rowSecond.events[0].json.contains(#""sequence":2"#))
        #expect(await fromRows.pendingFires.count == 2)
        await fromRows.close()
        await fromRecords.close()
        for userID in [german, plain] {
            #expect(try file(fromRows, userID, in: rowFixture.directory).openEpisode?.deliveries.count == 2)
        }
    }

    /// A crash after the fire (its line only in the log), or after a snapshot that deleted
    /// that segment before the files caught up: the next start has every delivery in the rows
    /// and the records, the events still pending, and fires none of them again.
    @Test(arguments: [false, true])
    func aCrashNeitherLosesNorRepeatsARowFire(afterSnapshot: Bool) async throws {
        let fixture = try StoreFixture()
        let store = try open(fixture.directory, cachedRecords: 0)
        try await prepare(store)
        let due = start.addingTimeInterval(60)
        let fired = try await store.fireDue(now: due, limit: 100)
        #expect(fired.events.count == 2)
        if afterSnapshot {
            // The fold is held back, so the snapshot must log the changes again.
            try await store.checkpoint(snapshot: true, foldLimit: 0, fireFoldLimit: 0)
            #expect(await store.pendingFires.count == 3)
        }
        let crashed = try fixture.crashCopy()
        defer { try? FileManager.default.removeItem(atPath: crashed) }
        #expect(try file(store, german, in: crashed).openEpisode?.deliveries.isEmpty == true)
        let recovered = try open(crashed, cachedRecords: 0)
        #expect(await recovered.pendingEvents(for: "file") == 2)
        #expect(try await recovered.fireDue(now: due.addingTimeInterval(1), limit: 100).events.isEmpty)
        for userID in [german, plain] {
            #expect(await recovered.schedule(of: userID)?.deliveredCount == 1)
        }
        #expect(await recovered.schedule(of: muted)?.isSuppressed == true)
        let germanRecord = try #require(try await recovered.record(german))
        #expect(germanRecord.openEpisode?.deliveries.map(\.id) == [fired.events[0].id])
        #expect(try await recovered.record(muted)?.openEpisode?.suppressedCount == 1)
        await recovered.close()
        // A clean stop leaves the files current.
        #expect(try file(recovered, plain, in: crashed).openEpisode?.deliveries.count == 1)
        #expect(try file(recovered, muted, in: crashed).openEpisode?.suppressedCount == 1)
        await store.close()
    }

    /// A report that fixes the setting after a row fire withdraws the reminder the row sent
    /// (the file did not hold it yet) and counts it in the episode's outcome.
    @Test func aReportAfterARowFireWithdrawsItsReminder() async throws {
        let fixture = try StoreFixture()
        let store = try open(fixture.directory, cachedRecords: 0)
        try await prepare(store)
        let fired = try await store.fireDue(now: start.addingTimeInterval(60), limit: 100)
        let reminder = try #require(fired.events.first { $0.userID == plain })
        let fixed = try await store.storeReport(
            PermissionReport(location: .always, notifications: .authorized, observedAt: start.addingTimeInterval(90)),
            for: plain, receivedAt: start.addingTimeInterval(90)
        ).outcome
        guard case .withdraw(let withdraw)? = fixed.events.first else {
            Issue.record("no withdraw: \(fixed.events)")
            return
        }
        #expect(withdraw.reminderIDs == [reminder.id])
        #expect(fixed.outcomes.map(\.reminders) == [1])
        await store.close()
        #expect(try file(store, plain, in: fixture.directory).episodes.first?.deliveries.map(\.id) == [reminder.id])
    }
}
