import Foundation
import RemindCore
import RemindStore
import RemindTesting
import Testing

struct OutboxClaimTests {
    let start = Fixtures.date("2026-11-15T10:00:00Z")

    /// Concurrent deliveries take different users' events side by side, but a user's withdraw
    /// is handed out only once the reminder before it is done; a released event comes back.
    @Test(arguments: StoreBackend.allCases)
    func claimsKeepEachUsersEventsInOrder(_ backend: StoreBackend) async throws {
        let policy = ReminderPolicy(
            configuration: PolicyConfiguration(notification: .init(notificationTriggerDelay: 60)))
        let opened = try backend.open(policy: policy, sinks: ["hook"])
        let store = opened.store
        let (x, y) = (Fixtures.userID("x"), Fixtures.userID("y"))
        _ = try await store.storeReport(
            PermissionReport(location: .whileInUse, observedAt: start), for: x, receivedAt: start)
        _ = try await store.fireDue(now: start.addingTimeInterval(60))
        // x fixes the setting (a withdraw behind x's reminder), then y's reminder comes due.
        let later = start.addingTimeInterval(61)
        _ = try await store.storeReport(
            PermissionReport(location: .always, observedAt: later), for: x, receivedAt: later)
        _ = try await store.storeReport(
            PermissionReport(location: .whileInUse, observedAt: later), for: y, receivedAt: later)
        _ = try await store.fireDue(now: later.addingTimeInterval(60))
        #expect(await store.pendingEvents(for: "hook") == 3)

        let claimed = [
            try #require(await store.claimEvent(for: "hook")), try #require(await store.claimEvent(for: "hook")),
        ]
        backend.expectOrder(of: claimed.map(\.userID), [x, y])
        let reminderX = try #require(claimed.first { $0.userID == x })
        #expect(reminderX.kind == .reminder)
        let reminderY = try #require(claimed.first { $0.userID == y })
        #expect(await store.claimEvent(for: "hook") == nil)

        await store.release(reminderY.id, sink: "hook")
        #expect(await store.claimEvent(for: "hook")?.id == reminderY.id)
        await store.complete(reminderX.id, sink: "hook")
        let withdrawX = try #require(await store.claimEvent(for: "hook"))
        #expect(withdrawX.userID == x && withdrawX.kind == .withdraw)
        await store.close()
    }

    /// A release from a cancelled task (a dispatcher stopping at shutdown) still gives the
    /// event back: it is claimable again at once, not after its lease runs out.
    @Test(arguments: StoreBackend.allCases)
    func releaseFromACancelledTaskGivesTheEventBack(_ backend: StoreBackend) async throws {
        let policy = ReminderPolicy(
            configuration: PolicyConfiguration(notification: .init(notificationTriggerDelay: 60)))
        let store = try backend.open(policy: policy, sinks: ["hook"]).store
        for user in ["a", "b"] {
            _ = try await store.storeReport(
                PermissionReport(location: .whileInUse, observedAt: start), for: Fixtures.userID(user),
                receivedAt: start)
        }
        _ = try await store.fireDue(now: start.addingTimeInterval(60))
        let claimed = await store.claimEvents(for: "hook", limit: 10)
        #expect(claimed.count == 2)
        let stopping = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            #expect(Task.isCancelled)
            for event in claimed { await store.release(event.id, sink: "hook") }
        }
        await stopping.value
        let again = await store.claimEvents(for: "hook", limit: 10)
        #expect(Set(again.map(\.id)) == Set(claimed.map(\.id)))
        await store.close()
    }

    /// A batch claim follows the same rule in one pass: x's withdraw is not handed out beside
    /// x's reminder, the limit holds, and what the first batch took is not taken again.
    @Test(arguments: StoreBackend.allCases)
    func batchClaimKeepsEachUsersEventsInOrder(_ backend: StoreBackend) async throws {
        let policy = ReminderPolicy(
            configuration: PolicyConfiguration(notification: .init(notificationTriggerDelay: 60)))
        let opened = try backend.open(policy: policy, sinks: ["hook"])
        let store = opened.store
        let (x, y, z) = (Fixtures.userID("x"), Fixtures.userID("y"), Fixtures.userID("z"))
        _ = try await store.storeReport(
            PermissionReport(location: .whileInUse, observedAt: start), for: x, receivedAt: start)
        _ = try await store.fireDue(now: start.addingTimeInterval(60))
        let later = start.addingTimeInterval(61)
        _ = try await store.storeReport(
            PermissionReport(location: .always, observedAt: later), for: x, receivedAt: later)
        for user in [y, z] {
            _ = try await store.storeReport(
                PermissionReport(location: .whileInUse, observedAt: later), for: user, receivedAt: later)
        }
        _ = try await store.fireDue(now: later.addingTimeInterval(60))
        #expect(await store.pendingEvents(for: "hook") == 4)

        let first = await store.claimEvents(for: "hook", limit: 2)
        #expect(first.count == 2)
        #expect(first.allSatisfy { $0.kind == .reminder })
        let second = await store.claimEvents(for: "hook", limit: 10)
        backend.expectOrder(of: (first + second).map(\.userID), [x, y, z])
        #expect(await store.claimEvents(for: "hook", limit: 10).isEmpty)
        let reminderX = try #require((first + second).first { $0.userID == x })
        await store.complete(reminderX.id, sink: "hook")
        let third = await store.claimEvents(for: "hook", limit: 10)
        #expect(third.map(\.userID) == [x] && third.first?.kind == .withdraw)
        await store.close()
    }
}
