import Foundation
import RemindCore
import RemindStore
import RemindTesting
import Testing

/// Where each backend's outbox puts a reminder (docs/fallback.md): push-channel ones to the
/// sinks of role `always`, fallback ones to the fallback sinks (and the other `always` sinks
/// unless notifications are off), a reroute to the fallback sinks alone, once; kept across a
/// restart where the backend is durable.
struct FallbackRoutingContractTests {
    let start = Fixtures.date("2026-11-28T10:00:00Z")
    let token = String(repeating: "cd", count: 32)
    let sinks = ["journal", "apns", "mail"]

    var policy: ReminderPolicy {
        var configuration = PolicyConfiguration(notification: .init(notificationTriggerDelay: 60))
        configuration.channels = ChannelConfiguration(pushSinks: ["apns": .apns], fallbackSinks: ["mail"])
        return ReminderPolicy(configuration: configuration)
    }

    func report(
        _ store: any StateStore, _ user: String, notifications: NotificationAuthorization, token: String?
    ) async throws {
        try await store.storeReport(
            PermissionReport(
                location: .whileInUse, notifications: notifications, observedAt: start, platform: "Android 14",
                locale: "fr-FR", push: token.map { .set(PushAddress(service: .apns, token: $0)) } ?? .unchanged),
            for: Fixtures.userID(user), receivedAt: start)
    }

    /// The users whose events a sink has now, by user ID, with the event's channel and reason.
    func queued(_ store: any StateStore, _ sink: String) async throws -> [String: String] {
        var found: [String: String] = [:]
        for event in await store.claimEvents(for: sink, limit: 100) {
            guard case .reminder(let reminder) = try SinkEvent(json: event.bytes) else { continue }
            found[event.userID.rawValue] = reminder.channel.rawValue + "/" + (reminder.because?.rawValue ?? "-")
            await store.release(event.id, sink: sink)
        }
        return found
    }

    @Test(arguments: StoreBackend.allCases)
    func eachReminderTakesOneChannel(_ backend: StoreBackend) async throws {
        let opened = try backend.open(policy: policy, sinks: sinks, now: start)
        var store = opened.store
        try await report(store, "off", notifications: .denied, token: token)
        try await report(store, "push", notifications: .authorized, token: token)
        try await report(store, "none", notifications: .authorized, token: nil)
        let fired = try await store.fireDue(now: start.addingTimeInterval(60))
        #expect(fired.events.count == 3 && fired.suppressed.isEmpty)
        #expect(try await queued(store, "journal") == ["push": "push/-", "none": "fallback/noPushAddress"])
        #expect(try await queued(store, "apns") == ["push": "push/-"])
        #expect(
            try await queued(store, "mail") == ["off": "fallback/notificationsOff", "none": "fallback/noPushAddress"])

        // The push sink finds the token dead: the reminder goes to the fallback sinks alone, once.
        let pushed = try #require(await store.claimEvents(for: "apns", limit: 1).first)
        guard case .reminder(let reminder) = try SinkEvent(json: pushed.bytes) else {
            Issue.record("not a reminder")
            return
        }
        #expect(try await store.reroute(reminder) == .addressChanged)
        try await store.markUnreachable(pushed.userID, token: token, reason: "Unregistered", at: start)
        #expect(try await store.reroute(reminder) == .rerouted)
        #expect(try await store.reroute(reminder) == .alreadyRerouted)
        await store.complete(pushed.id, sink: "apns")
        #expect(try await queued(store, "mail")["push"] == "fallback/unreachable")
        #expect(try await queued(store, "journal") == ["push": "push/-", "none": "fallback/noPushAddress"])
        let record = try #require(try await store.record(Fixtures.userID("push")))
        #expect(record.openEpisode?.deliveries.map(\.channel) == [.fallback])
        #expect(try await store.reroute(reminder) == .alreadyRerouted)

        // Durable where the backend is: the same queues after a restart.
        if let fixture = opened.fixture {
            await store.close()
            store = try #require(try opened.reopen(fixture.directory, policy: policy, sinks: sinks, now: start))
            #expect(await store.pendingEvents(for: "mail") == 3)
            #expect(await store.pendingEvents(for: "apns") == 0)
            #expect(try await queued(store, "mail")["push"] == "fallback/unreachable")
        }
        await store.close()
    }
}
