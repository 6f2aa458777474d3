import Foundation
import RemindCore
import RemindStore
import RemindTesting
import Testing

/// `UserStore.update(batch:)`, written once against the protocol and run against every
/// backend: a batch stores what the same reports stored one by one would, in the batch's
/// order, and answers each change in order.
struct BatchUpdateContractTests {
    let start = Fixtures.date("2026-11-15T10:00:00Z")
    let policy = ReminderPolicy(
        configuration: PolicyConfiguration(notification: .init(notificationTriggerDelay: 60)))

    /// Reports of three users, interleaved; user `a` changes three times and repeats once,
    /// with `observedAt` out of order so that the fold's order is visible.
    var reports: [(report: PermissionReport, userID: UserID)] {
        func report(_ location: LocationAuthorization, at offset: Double) -> PermissionReport {
            PermissionReport(location: location, observedAt: start.addingTimeInterval(offset))
        }
        return [
            (report(.whileInUse, at: 0), Fixtures.userID("a")),
            (report(.denied, at: 0), Fixtures.userID("b")),
            (report(.always, at: 10), Fixtures.userID("a")),
            (report(.always, at: 11), Fixtures.userID("a")),
            (report(.allowOnce, at: 5), Fixtures.userID("c")),
            (report(.denied, at: 20), Fixtures.userID("a")),
        ]
    }

    /// Each change runs on the record the one before it left: the outcomes follow the batch's
    /// order, a repeat inside the batch changes nothing, and the result is what storing the
    /// same reports one at a time gives.
    @Test(arguments: StoreBackend.allCases)
    func batchEqualsTheSameReportsOneByOne(_ backend: StoreBackend) async throws {
        let batched = try backend.open(policy: policy, now: start).store
        let single = try backend.open(policy: policy, now: start).store
        let results = try await batched.storeReports(reports, receivedAt: start.addingTimeInterval(30))
        #expect(results.count == reports.count)
        let outcomes = try results.map { try $0.get().outcome }
        #expect(outcomes.map(\.record.userID) == reports.map(\.userID))
        #expect(
            outcomes.map(\.record.permissions?.location) == [
                .whileInUse, .denied, .always, .always, .allowOnce, .denied,
            ])
        #expect(outcomes.map(\.changed) == [true, true, true, false, true, true])
        #expect(outcomes.map(\.record.reportCount) == [1, 1, 2, 3, 1, 4])
        for (report, userID) in reports {
            _ = try await single.storeReport(report, for: userID, receivedAt: start.addingTimeInterval(30))
        }
        for userID in ["a", "b", "c"].map(Fixtures.userID) {
            let expected = try #require(try await single.record(userID))
            #expect(try await batched.record(userID) == expected, "\(userID)")
        }
        #expect(try await batched.record(Fixtures.userID("a"))?.history.count == 3)
        #expect(await batched.statistics().users == 3)
        #expect(await batched.nextWakeAt() == (await single.nextWakeAt()))
        await batched.close()
        await single.close()
    }

    /// A batch's events go into the outbox like a single report's: the episode `a`'s first
    /// report opened and a reminder fired closes with a withdraw when a later report fixes it.
    @Test(arguments: StoreBackend.allCases)
    func batchEventsReachTheOutbox(_ backend: StoreBackend) async throws {
        let store = try backend.open(policy: policy, now: start).store
        let a = Fixtures.userID("a")
        _ = try await store.storeReport(
            PermissionReport(location: .whileInUse, observedAt: start), for: a, receivedAt: start)
        let fired = try await store.fireDue(now: start.addingTimeInterval(60))
        #expect(fired.events.map(\.kind) == [.reminder])
        let later = start.addingTimeInterval(120)
        let results = try await store.storeReports(
            [
                (PermissionReport(location: .always, observedAt: later), a),
                (PermissionReport(location: .whileInUse, observedAt: later), Fixtures.userID("z")),
            ], receivedAt: later)
        #expect(try results[0].get().outcome.events.map(\.kind) == [.withdraw])
        #expect(await store.pendingEvents(for: "file") == 2)
        await store.close()
    }

    /// An empty batch stores nothing and answers nothing.
    @Test(arguments: StoreBackend.allCases)
    func emptyBatchIsNothing(_ backend: StoreBackend) async throws {
        let store = try backend.open(policy: policy, now: start).store
        #expect(try await store.update(batch: []).isEmpty)
        #expect(await store.statistics().users == 0)
        await store.close()
    }
}
