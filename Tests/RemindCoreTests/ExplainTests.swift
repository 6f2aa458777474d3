import Foundation
import RemindCore
import RemindTesting
import Testing

struct ExplainTests {
    /// With Always access the explanation says so and names no next reminder.
    @Test func explainsAlwaysAccess() {
        var harness = PolicyHarness()
        harness.report(Fixtures.report(.always, at: "2026-11-15T10:00:00Z"))
        let explanation = harness.policy.explain(harness.record!, now: harness.now, daemonStartedAt: nil)
        #expect(explanation.reasons.map(\.code) == [.alwaysAccess, .push])
        #expect(explanation.nextReminderAt == nil)
    }

    /// An open episode is explained step by step: missing since, then when it is due.
    @Test func explainsPendingReminder() {
        var harness = PolicyHarness()
        harness.report(Fixtures.report(.whileInUse, at: "2026-11-15T10:00:00Z"))
        let explanation = harness.policy.explain(harness.record!, now: harness.now, daemonStartedAt: nil)
        #expect(explanation.reasons.map(\.code) == [.episodeOpen, .due, .push])
        #expect(explanation.reasons[0].text.contains("2026-11-15T10:00:00Z"))
        #expect(explanation.reasons[1].text.contains("2026-11-22T10:00:00Z"))
        #expect(explanation.nextReminderAt == Fixtures.date("2026-11-22T10:00:00Z"))
    }

    /// Denied notifications and quiet hours are named with what they change.
    @Test func explainsSuppressionAndQuietHours() {
        var configuration = PolicyConfiguration()
        configuration.quietHours = QuietHours(start: 21 * 60, end: 8 * 60)
        var harness = PolicyHarness(configuration)
        harness.report(
            Fixtures.report(
                .whileInUse, at: "2026-11-15T22:30:00Z", notifications: .denied, timeZone: "Europe/Berlin"))
        var explanation = harness.policy.explain(harness.record!, now: harness.now, daemonStartedAt: nil)
        #expect(explanation.reasons.map(\.code) == [.episodeOpen, .quietHours, .notificationsOff, .push])
        #expect(explanation.reasons[1].text.contains("Europe/Berlin"))
        harness.run(until: Fixtures.date("2026-11-30T00:00:00Z"))
        explanation = harness.policy.explain(harness.record!, now: harness.now, daemonStartedAt: nil)
        #expect(explanation.reasons.dropLast().last?.code == .suppressed)
        #expect(explanation.nextReminderAt == nil)
    }

    /// A delivered one-off reminder ends the series, and the explanation says why.
    @Test func explainsEndedSeries() {
        var harness = PolicyHarness()
        harness.report(Fixtures.report(.whileInUse, at: "2026-11-15T10:00:00Z"))
        harness.run(until: Fixtures.date("2026-11-30T00:00:00Z"))
        let explanation = harness.policy.explain(harness.record!, now: harness.now, daemonStartedAt: nil)
        #expect(explanation.reasons.map(\.code) == [.episodeOpen, .delivered, .seriesEnded, .push])
        #expect(explanation.reasons[2].text.contains("showRecurringNotification"))
    }

    /// The last step says whether the push sinks reach the device, naming only the token's end.
    @Test func explainsPushReachability() {
        var harness = PolicyHarness()
        harness.report(Fixtures.report(.whileInUse, at: "2026-11-15T10:00:00Z"))
        let token = String(repeating: "0", count: 56) + "1a2b3c4d"
        var explanation = harness.policy.explain(harness.record!, now: harness.now, daemonStartedAt: nil)
        #expect(explanation.reasons.last?.text.hasPrefix("no push address reported") == true)
        harness.record!.device.push = PushAddress(service: .apns, token: token)
        explanation = harness.policy.explain(harness.record!, now: harness.now, daemonStartedAt: nil)
        #expect(explanation.reasons.last?.text == "push address: APNs (production) token …1a2b3c4d, reachable")
        harness.record!.device.markUnreachable(
            token: token, reason: "Unregistered", at: Fixtures.date("2026-11-16T10:00:00Z"))
        explanation = harness.policy.explain(harness.record!, now: harness.now, daemonStartedAt: nil)
        #expect(
            explanation.reasons.last?.text
                == "APNs (production) token …1a2b3c4d is dead (Unregistered since 2026-11-16T10:00:00Z): the apns sink "
                + "skips this user until a report brings a new token")
        #expect(!explanation.reasons.contains { $0.text.contains(token) })
    }
}
