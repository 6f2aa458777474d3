import Foundation
import RemindCore
import RemindTesting
import Testing

@testable import RemindStore

/// Where the learned allocation is kept (`LearningStore`), and the send-time data the files
/// backend keeps: the activity histogram through the log, the send-time arm in outcome lines.
@Suite(.ownThread)
struct LearningStoreTests {
    let start = Fixtures.date("2026-11-15T10:00:00Z")

    func state(_ at: Date, _ weights: [Double], names: [String] = ["default", "a"]) -> AllocationState {
        AllocationState(
            computedAt: at, learned: true,
            groups: zip(names, weights).map {
                .init(name: $0, weight: $1, probabilityBest: $1, successes: 10, failures: 20)
            })
    }

    /// The file survives a crash, and an older or equal recompute does not replace a newer one.
    @Test func theAllocationFileIsDurableAndKeepsTheNewest() async throws {
        let fixture = try StoreFixture()
        let store = try fixture.open(policy: ReminderPolicy())
        #expect(try await store.allocation() == nil)
        let first = state(start, [0.3, 0.7])
        #expect(try await store.storeAllocation(first) == first)
        #expect(try await store.storeAllocation(state(start, [0.5, 0.5])) == first)
        let later = state(start.addingTimeInterval(43_200), [0.1, 0.9])
        #expect(try await store.storeAllocation(later) == later)
        let crashed = try fixture.crashCopy()
        defer { try? FileManager.default.removeItem(atPath: crashed) }
        let recovered = try fixture.open(crashed, policy: ReminderPolicy())
        #expect(try await recovered.allocation() == later)
        await recovered.close()
        await store.close()
    }

    /// The memory store, the contract's reference, keeps the newest the same way.
    @Test func theMemoryStoreKeepsTheNewest() async throws {
        let store = MemoryStateStore(sinks: [], policy: ReminderPolicy(), now: start)
        let first = state(start, [0.3, 0.7])
        #expect(await store.storeAllocation(first) == first)
        #expect(await store.storeAllocation(state(start.addingTimeInterval(-1), [0.5, 0.5])) == first)
    }

    /// Reports count in the user's activity, which a restart keeps (the log and the files),
    /// and the schedule carries the active hour; outcome lines name the send-time arm.
    @Test func activityAndTheSendTimeArmAreKept() async throws {
        let policy = ReminderPolicy(
            configuration: PolicyConfiguration(
                notification: .init(notificationTriggerDelay: 60, sendTime: .active(.init(minReports: 2)))))
        let fixture = try StoreFixture()
        let store = try fixture.open(policy: policy)
        let user = Fixtures.userID("u-1")
        for hours in [0.0, 24, 48] {
            let at = start.addingTimeInterval(hours * 3_600)
            try await store.storeReport(
                PermissionReport(location: .whileInUse, observedAt: at, timeZone: "Europe/Berlin"), for: user,
                receivedAt: at)
        }
        let closedAt = start.addingTimeInterval(50 * 3_600)
        let closing = try await store.storeReport(
            PermissionReport(location: .always, observedAt: closedAt), for: user, receivedAt: closedAt)
        #expect(closing.outcome.outcomes.first?.sendTime == .active)
        let record = try #require(try await store.record(user))
        #expect(record.activity.counts[11] == 3)
        #expect(record.activity.total == 4)
        #expect(await store.schedule(of: user)?.activeHour == 11)
        let crashed = try fixture.crashCopy()
        defer { try? FileManager.default.removeItem(atPath: crashed) }
        let recovered = try fixture.open(crashed, policy: policy)
        #expect(try await recovered.record(user)?.activity == record.activity)
        let stats = await recovered.stats(since: start.addingTimeInterval(-60), until: closedAt)
        #expect(stats.bySendTime.map(\.name) == ["due", "active"])
        #expect(stats.bySendTime.last?.resolved == 1)
        await recovered.close()
        await store.close()
    }
}
