import Foundation
import RemindCore
import RemindTesting
import Testing

@testable import RemindStore

/// Every change is logged as what it changed (`RecordDelta`), a new user's first report and a
/// bulk request's lines included. Random report sequences go through the store (the delta
/// shape: log lines replayed onto the files) and through the policy alone (the whole-record
/// shape: each record folded from the one before); both reach equal records, and the user
/// files the checkpoint writes are the whole records' bytes.
@Suite(.ownThread)
struct DeltaLogPropertyTests {
    static let start = Fixtures.date("2026-11-15T10:00:00Z")

    /// A report that changes something more often than not: users flip between states, and a
    /// third repeat what they said (a repeat is answered from memory, not logged).
    static func report(_ rng: inout SplitMix64, at observedAt: Date) -> PermissionReport {
        PermissionReport(
            location: rng.weighted([(.always, 3), (.whileInUse, 4), (.denied, 1), (.notDetermined, 1)]),
            accuracy: rng.chance(0.8) ? .full : .reduced,
            notifications: rng.chance(0.3) ? nil : rng.element([.authorized, .denied, .provisional]),
            observedAt: observedAt,
            timeZone: rng.chance(0.8) ? nil : rng.element(["Europe/Berlin", "Asia/Tokyo"]),
            platform: rng.chance(0.5) ? "iOS 18.1" : "Android 15",
            locale: rng.chance(0.7) ? nil : rng.element(["de-DE", "en-US"]))
    }

    @Test(arguments: [0xD1FF_0001, 0xD1FF_0002, 0xD1FF_0003, 0xD1FF_0004, 0xD1FF_0005, 0xD1FF_0006] as [UInt64])
    func theDeltaAndTheWholeRecordShapesAgree(seed: UInt64) async throws {
        var rng = SplitMix64(seed: seed)
        // Short histories drop their oldest entries, which a delta must span.
        let configuration = PolicyConfiguration(
            notification: LocationNotificationConfiguration(
                showRecurringNotification: rng.chance(0.5), notificationTriggerDelay: 3600),
            historyMaxEntries: rng.int(2...12))
        let policy = ReminderPolicy(configuration: configuration)
        let fixture = try StoreFixture()
        let store = try fixture.open(policy: policy)
        let users = (0..<rng.int(2...5)).map { Fixtures.userID("p\(seed % 1000)-\($0)") }
        // The whole-record shape: every report folded by the policy; and the record as of the
        // user's last logged change (what a crash before a checkpoint keeps: repeats answered
        // after it live in memory only, as the daemon's are until it logs them).
        var whole: [UserID: UserRecord] = [:]
        var logged: [UserID: UserRecord] = [:]
        var clock = Self.start
        var checkpointed = false
        for step in 0..<rng.int(20...60) {
            clock += TimeInterval(rng.int(1...7200))
            // One report, or a bulk request of several (a user may appear more than once).
            let batch = (0..<(rng.chance(0.3) ? rng.int(2...6) : 1)).map { index in
                (report: Self.report(&rng, at: clock + TimeInterval(index) / 1000), userID: rng.element(users))
            }
            if batch.count == 1 {
                try await store.storeReport(batch[0].report, for: batch[0].userID, receivedAt: clock)
            } else {
                for result in try await store.storeReports(batch, receivedAt: clock) { _ = try result.get() }
            }
            for (report, userID) in batch {
                let before = whole[userID]
                var outcome = policy.apply(report, to: before, userID: userID, receivedAt: clock)
                if outcome.changed || before == nil {
                    outcome.record.revision = (before?.revision ?? 0) + 1
                    logged[userID] = outcome.record
                } else {
                    outcome.record.revision = before?.revision ?? 0
                }
                whole[userID] = outcome.record
            }
            if rng.chance(0.1) {
                try await store.checkpoint(snapshot: rng.chance(0.5))
                checkpointed = true
                // The files now hold the repeats too: a crash keeps what memory has.
                logged = whole
            }
            _ = step
        }
        for userID in users {
            #expect(try await store.record(userID) == whole[userID], "seed \(seed), \(userID): in memory")
        }
        // A crash now: the log replayed onto whatever the checkpoints wrote.
        let crashed = try fixture.crashCopy()
        defer { try? FileManager.default.removeItem(atPath: crashed) }
        let replayed = try fixture.open(crashed, policy: policy)
        for userID in users {
            #expect(
                try await replayed.record(userID) == logged[userID],
                "seed \(seed), \(userID): replayed (checkpointed: \(checkpointed))")
        }
        await replayed.close()
        // The files a checkpoint writes are the whole records, byte for byte.
        try await store.checkpoint(snapshot: false)
        for userID in users {
            let file = try Data(contentsOf: URL(fileURLWithPath: store.userFilePath(userID)))
            #expect(Array(file) == whole[userID]?.jsonBytes, "seed \(seed), \(userID): file")
        }
        #expect(fixture.notices.allSatisfy { if case .damagedFile = $0 { false } else { true } }, "\(fixture.notices)")
        await store.close()
    }
}
