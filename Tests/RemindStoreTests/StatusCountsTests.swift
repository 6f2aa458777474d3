import Foundation
import RemindCore
import RemindStore
import RemindTesting
import Testing

/// The status counts are kept current as records change (no scan of every user): after any
/// mix of reports, fires, deletes and a policy change they must equal a recount.
@Suite(.ownThread)
struct StatusCountsTests {
    let start = Fixtures.date("2026-11-15T10:00:00Z")

    static let cases: [(StoreBackend, heartbeat: Bool)] = StoreBackend.allCases.flatMap { [($0, false), ($0, true)] }

    /// 1,000 random operations over 40 users; the counts (users per service and state among
    /// them) are compared with a recount from the users' records every 100 operations and after
    /// the policy changes.
    @Test(arguments: cases)
    func countsEqualARecount(_ backend: StoreBackend, heartbeat: Bool) async throws {
        var configuration = PolicyConfiguration(
            notification: .init(showRecurringNotification: true, notificationTriggerDelay: 600))
        configuration.heartbeatIntervalSeconds = heartbeat ? 900 : nil
        configuration.services = Self.services
        let opened = try backend.open(policy: ReminderPolicy(configuration: configuration), now: start)
        let store = opened.store
        var random = SplitMix64(seed: heartbeat ? 7 : 3)
        var known: Set<UserID> = []
        var now = start
        let locations: [LocationAuthorization] = [.always, .whileInUse, .denied, .allowOnce]
        let notifications: [NotificationAuthorization?] = [.authorized, .denied, .notDetermined, .provisional, nil]
        let motions: [MotionAuthorization?] = [.authorized, .denied, .restricted, .notDetermined, nil]
        for step in 1...1000 {
            now = now.addingTimeInterval(Double.random(in: 0...120, using: &random))
            let user = Fixtures.userID("u\(Int.random(in: 0..<40, using: &random))")
            switch Int.random(in: 0..<10, using: &random) {
            case 0:
                if try await store.delete(user, at: Fixtures.date("2026-12-01T00:00:00Z")) { known.remove(user) }
            case 1, 2:
                _ = try await store.fireDue(now: now, limit: 64)
            default:
                let report = PermissionReport(
                    location: locations.randomElement(using: &random)!,
                    accuracy: Bool.random(using: &random) ? .full : .reduced,
                    locationServices: Int.random(in: 0..<5, using: &random) > 0,
                    notifications: notifications.randomElement(using: &random)!,
                    observedAt: now.addingTimeInterval(-Double.random(in: 0...900, using: &random)),
                    motion: motions.randomElement(using: &random)!)
                _ = try await store.storeReport(report, for: user, receivedAt: now)
                known.insert(user)
            }
            if step % 100 == 0 { try await expectCountsMatch(store, known: known) }
        }
        configuration.notification.notificationTriggerDelay = 60
        // A reload that makes precise and motion reminding changes what is due, not the counts
        // per condition.
        configuration.notification.remindFor = PermissionErrorSet(PermissionErrorSet.remindable)
        await store.setPolicy(ReminderPolicy(configuration: configuration))
        try await expectCountsMatch(store, known: known)
        if let fixture = opened.fixture {
            // A restart (clean, then from a crash copy: snapshot plus log) keeps the counts.
            try await store.checkpoint(snapshot: true)
            let crashed = try fixture.crashCopy()
            defer { try? FileManager.default.removeItem(atPath: crashed) }
            await store.close()
            let reopened = try #require(
                try opened.reopen(policy: ReminderPolicy(configuration: configuration), now: now))
            try await expectCountsMatch(reopened, known: known)
            await reopened.close()
            let recovered = try #require(
                try opened.reopen(crashed, policy: ReminderPolicy(configuration: configuration), now: now))
            try await expectCountsMatch(recovered, known: known)
            await recovered.close()
        } else {
            await store.close()
        }
    }

    static let services = [
        ServiceDefinition(name: "driving", requires: [.location, .always], optional: [.precise, .motion]),
        ServiceDefinition(name: "walking", requires: [.motion], optional: [.notifications]),
        ServiceDefinition(name: "any", requires: [.locationServices]),
    ]

    /// Reports alone after a restart: the counts rebuilt from the snapshot and the log equal
    /// those before, service by service.
    @Test func restartKeepsTheServiceCounts() async throws {
        let fixture = try StoreFixture()
        let policy = ReminderPolicy(configuration: PolicyConfiguration(services: Self.services))
        let store = try fixture.open(policy: policy, now: start)
        var random = SplitMix64(seed: 11)
        for index in 0..<200 {
            let report = PermissionReport(
                location: [.always, .whileInUse, .denied].randomElement(using: &random)!,
                accuracy: Bool.random(using: &random) ? .full : .reduced,
                observedAt: start.addingTimeInterval(Double(index)),
                motion: [.authorized, .denied, nil].randomElement(using: &random)!)
            _ = try await store.storeReport(
                report, for: Fixtures.userID("u\(index % 50)"), receivedAt: start + .seconds(index))
            // Half way, a snapshot: the rest is replayed from the log.
            if index == 100 { try await store.checkpoint(snapshot: true) }
        }
        let before = await store.statistics().usersByConditions
        let crashed = try fixture.crashCopy()
        defer { try? FileManager.default.removeItem(atPath: crashed) }
        await store.close()
        for directory in [fixture.directory, crashed] {
            let reopened = try fixture.open(directory, policy: policy, now: start + .days(1))
            let after = await reopened.statistics().usersByConditions
            #expect(after == before)
            for service in Self.services {
                #expect(service.counts(after) == service.counts(before))
            }
            #expect(after.total == 50)
            await reopened.close()
        }
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
        // Users per service and state, recounted from what each user's status shows (the
        // policy's `services`, which `UserStatus` writes).
        var recounted: [String: [ServiceState: Int]] = [:]
        for userID in known {
            let permissions = try #require(try await store.record(userID)?.permissions)
            for (name, status) in policy.services(permissions) {
                recounted[name, default: [:]][status.state, default: 0] += 1
            }
        }
        for service in policy.configuration.services {
            let counts = service.counts(counted.usersByConditions).filter { $0.value > 0 }
            #expect(counts == (recounted[service.name] ?? [:]), "\(service.name)")
        }
        #expect(counted.usersByConditions.total == known.count)
        #expect(counted.users == recount.users)
        #expect(counted.openEpisodes == recount.openEpisodes)
        #expect(counted.pendingReminders == recount.pendingReminders)
        #expect(counted.nextReminderAt == recount.nextReminderAt)
    }
}
