import Foundation
import RemindCore
import RemindStore
import RemindTesting
import Testing

/// The status counts are kept current as records change (no scan of every user): after any
/// mix of reports, fires, deletes and a policy change they must equal a recount.
struct StatusCountsTests {
    let start = Fixtures.date("2026-11-15T10:00:00Z")

    static let cases: [(StoreBackend, heartbeat: Bool)] = StoreBackend.allCases.flatMap { [($0, false), ($0, true)] }

    /// 1,000 random operations over 40 users; the counts are compared with a recount from the
    /// users' records every 100 operations and after the policy changes.
    @Test(arguments: cases)
    func countsEqualARecount(_ backend: StoreBackend, heartbeat: Bool) async throws {
        var configuration = PolicyConfiguration(
            notification: .init(showRecurringNotification: true, notificationTriggerDelay: 600))
        configuration.heartbeatIntervalSeconds = heartbeat ? 900 : nil
        let opened = try backend.open(policy: ReminderPolicy(configuration: configuration), now: start)
        let store = opened.store
        var random = SplitMix64(seed: heartbeat ? 7 : 3)
        var known: Set<UserID> = []
        var now = start
        let locations: [LocationAuthorization] = [.always, .whileInUse, .denied, .allowOnce]
        let notifications: [NotificationAuthorization] = [.authorized, .denied, .notDetermined, .provisional]
        for step in 1...1000 {
            now = now.addingTimeInterval(Double.random(in: 0...120, using: &random))
            let user = Fixtures.userID("u\(Int.random(in: 0..<40, using: &random))")
            switch Int.random(in: 0..<10, using: &random) {
            case 0:
                if try await store.delete(user) { known.remove(user) }
            case 1, 2:
                _ = try await store.fireDue(now: now, limit: 64)
            default:
                let report = PermissionReport(
                    location: locations.randomElement(using: &random)!,
                    notifications: notifications.randomElement(using: &random)!,
                    observedAt: now.addingTimeInterval(-Double.random(in: 0...900, using: &random)))
                _ = try await store.report(report, for: user, receivedAt: now)
                known.insert(user)
            }
            if step % 100 == 0 { try await expectCountsMatch(store, known: known) }
        }
        configuration.notification.notificationTriggerDelay = 60
        await store.setPolicy(ReminderPolicy(configuration: configuration))
        try await expectCountsMatch(store, known: known)
        await store.close()
    }

    private func expectCountsMatch(_ store: any StateStore, known: Set<UserID>) async throws {
        let policy = await store.policy
        var recount = StoreStatistics()
        for userID in known {
            let schedule = try #require(try await store.record(userID)).schedule
            recount.users += 1
            if schedule.episodeStartedAt != nil { recount.openEpisodes += 1 }
            if let due = policy.reminderWakeAt(schedule, daemonStartedAt: store.daemonStartedAt) {
                recount.pendingReminders += 1
                if recount.nextReminderAt == nil || due < recount.nextReminderAt! { recount.nextReminderAt = due }
            }
        }
        let counted = await store.statistics()
        #expect(counted.users == recount.users)
        #expect(counted.openEpisodes == recount.openEpisodes)
        #expect(counted.pendingReminders == recount.pendingReminders)
        #expect(counted.nextReminderAt == recount.nextReminderAt)
    }
}
