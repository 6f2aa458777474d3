import Foundation
import RemindCore
import RemindTesting
import Testing

/// The channel a due reminder takes: push unless no push sink can deliver it, for the reasons
/// in their order; without a fallback sink, as before. And where the outbox routes each event.
struct ReminderChannelTests {
    let now = Fixtures.date("2026-11-28T12:00:00Z")
    let token = String(repeating: "ab", count: 32)

    func reach(_ service: PushService = .apns, dead: Bool = false) -> PushReach {
        PushReach(service: service, isReachable: !dead)
    }

    @Test func withoutAFallbackSinkNothingChanges() {
        let channels = ChannelConfiguration(pushSinks: ["apns": .apns])
        #expect(
            channels.decide(push: nil, notificationsDeliverable: true, lastReportAt: now, now: now)?.channel == .push)
        #expect(channels.decide(push: reach(), notificationsDeliverable: false, lastReportAt: now, now: now) == nil)
        // Every sink of a store gets every event, the push sinks included.
        #expect(channels.sinks(for: .always, among: ["journal", "apns"]) == ["journal", "apns"])
    }

    @Test func eachReasonInItsOrder() {
        let channels = ChannelConfiguration(
            pushSinks: ["apns": .apns], fallbackSinks: ["mail"], silentAfterSeconds: 86_400)
        let old = now.addingTimeInterval(-2 * 86_400)
        func because(_ push: PushReach?, deliverable: Bool = true, last: Date? = nil) -> FallbackReason?? {
            channels.decide(push: push, notificationsDeliverable: deliverable, lastReportAt: last ?? now, now: now)
                .map { $0.because }
        }
        #expect(because(reach()) == .some(nil))
        #expect(because(nil, deliverable: false, last: old) == .noPushAddress)
        // An FCM address with only an APNs sink configured is no address for it.
        #expect(because(reach(.fcm)) == .noPushAddress)
        #expect(because(reach(dead: true), deliverable: false) == .unreachable)
        #expect(because(reach(), deliverable: false, last: old) == .notificationsOff)
        #expect(because(reach(), last: old) == .silent)
        #expect(because(reach(), last: now.addingTimeInterval(-86_399)) == .some(nil))
        let never = ChannelConfiguration(pushSinks: ["apns": .apns], fallbackSinks: ["mail"], silentAfterSeconds: nil)
        #expect(never.decide(push: reach(), notificationsDeliverable: true, lastReportAt: old, now: now)?.channel == .push)
        // No push sink at all: everyone falls back.
        let none = ChannelConfiguration(fallbackSinks: ["mail"])
        #expect(
            none.decide(push: reach(), notificationsDeliverable: true, lastReportAt: now, now: now)?.because
                == .noPushAddress)
    }

    /// A reminder takes one channel: the push sinks never get a fallback reminder, the other
    /// sinks of role `always` get it unless notifications are off, and a withdraw goes to every
    /// sink a reminder of its episode reached.
    @Test func theOutboxRoutesByAudience() {
        let channels = ChannelConfiguration(pushSinks: ["apns": .apns, "fcm": .fcm], fallbackSinks: ["mail"])
        let sinks = ["journal", "apns", "fcm", "mail"]
        func route(_ channel: ReminderChannel, _ because: FallbackReason?) -> [String] {
            channels.sinks(for: SinkAudience(channel: channel, because: because), among: sinks)
        }
        #expect(route(.push, nil) == ["journal", "apns", "fcm"])
        #expect(route(.fallback, .noPushAddress) == ["journal", "mail"])
        #expect(route(.fallback, .unreachable) == ["journal", "mail"])
        #expect(route(.fallback, .silent) == ["journal", "mail"])
        #expect(route(.fallback, .notificationsOff) == ["mail"])
        #expect(channels.sinks(for: .always, among: sinks) == ["journal", "apns", "fcm"])
        let start = now
        let deliveries = [
            Delivery(id: "u/1/1", sequence: 1, dueAt: start, deliveredAt: start),
            Delivery(
                id: "u/1/2", sequence: 2, dueAt: start, deliveredAt: start, channel: .fallback,
                because: .notificationsOff),
        ]
        #expect(channels.sinks(for: SinkAudience(deliveries: deliveries), among: sinks) == sinks)
        #expect(channels.sinks(for: SinkAudience(deliveries: deliveries.suffix(1)), among: sinks) == ["mail"])
        // A held-out reminder reached no sink.
        var heldOut = deliveries[0]
        heldOut.heldOut = true
        #expect(SinkAudience(deliveries: [heldOut]).isEmpty)
    }

    /// With a fallback sink, a user whose notifications are off gets reminders there, a series
    /// like any other, with the channel in the event, the record and the withdraw; back to push
    /// once notifications are on.
    @Test func notificationsOffGoToTheFallbackAndBack() throws {
        var configuration = PolicyConfiguration.recurring(delay: 60)
        configuration.channels = ChannelConfiguration(pushSinks: ["apns": .apns], fallbackSinks: ["mail"])
        var harness = PolicyHarness(configuration)
        let address = PushAddress(service: .apns, token: token)
        let start = "2026-11-28T12:00:00Z"
        harness.report(
            PermissionReport(
                location: .whileInUse, notifications: .denied, observedAt: Fixtures.date(start), platform: "iOS 18",
                locale: "de-DE", push: .set(address)))
        harness.run(until: Fixtures.date(start) + .seconds(130))
        #expect(harness.suppressions == 0)
        #expect(harness.reminders.count == 2)
        let first = try #require(harness.reminders.first)
        #expect(first.channel == .fallback && first.because == .notificationsOff)
        #expect(first.locale == "de-DE" && first.platform == .ios)
        #expect(SinkEvent.reminder(first).json.contains(#""channel":"fallback","because":"notificationsOff","locale":"de-DE","platform":"ios""#))
        #expect(harness.record?.openEpisode?.deliveries.map(\.channel) == [.fallback, .fallback])
        // Notifications on: the next one takes push.
        harness.report(
            PermissionReport(
                location: .whileInUse, notifications: .authorized,
                observedAt: Fixtures.date(start) + .seconds(150)))
        harness.run(until: Fixtures.date(start) + .seconds(200))
        let last = try #require(harness.reminders.last)
        #expect(harness.reminders.count == 3 && last.channel == .push && last.because == nil)
        #expect(SinkEvent.reminder(last).json.contains(#""channel":"push","because":null"#))
        #expect(harness.record?.openEpisode?.funnelMarks.channels == [.fallback, .push])
        // Fixed: the withdraw reaches every sink either channel reached.
        harness.report(
            PermissionReport(
                location: .always, notifications: .authorized, observedAt: Fixtures.date(start) + .seconds(210)))
        let withdraw = try #require(harness.withdrawals.first)
        #expect(withdraw.audience == [.pushSinks, .otherSinks, .fallbackSinks])
    }

    /// A push delivery the push sink could not make moves to the fallback channel once: the
    /// event again, same id, for the fallback sinks alone; a second try changes nothing.
    @Test func aDeadTokenReroutesOnce() throws {
        var configuration = PolicyConfiguration.recurring(delay: 60)
        configuration.channels = ChannelConfiguration(pushSinks: ["apns": .apns], fallbackSinks: ["mail"])
        var harness = PolicyHarness(configuration)
        let start = Fixtures.date("2026-11-28T12:00:00Z")
        harness.report(
            PermissionReport(
                location: .whileInUse, notifications: .authorized, observedAt: start,
                push: .set(PushAddress(service: .apns, token: token))))
        harness.run(until: start + .seconds(61))
        let reminder = try #require(harness.reminders.first)
        #expect(reminder.channel == .push)
        // Still reachable: the push sink should try again, nothing moves.
        #expect(harness.policy.reroute(reminder, of: harness.record).result == .addressChanged)
        var record = try #require(harness.record)
        record.device.markUnreachable(token: token, reason: "Unregistered", at: start + .seconds(62))
        let (outcome, result) = harness.policy.reroute(reminder, of: record)
        #expect(result == .rerouted && outcome.refusal == nil)
        guard case .reminder(let again)? = outcome.events.first else {
            Issue.record("no event")
            return
        }
        #expect(again.id == reminder.id && again.channel == .fallback && again.because == .unreachable)
        #expect(SinkEvent.reminder(again).audience == .fallbackSinks)
        #expect(outcome.record.openEpisode?.deliveries.first?.channel == .fallback)
        #expect(harness.policy.reroute(reminder, of: outcome.record).result == .alreadyRerouted)
        #expect(harness.policy.reroute(reminder, of: nil).outcome.refusal != nil)
        // Without a fallback sink the push sink dead-letters it as before.
        let plain = ReminderPolicy(configuration: .recurring(delay: 60))
        #expect(plain.reroute(reminder, of: record).result == .noFallback)
    }
}
