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
        #expect(explanation.reasons.map(\.code) == [.alwaysAccess])
        #expect(explanation.nextReminderAt == nil)
    }

    /// An open episode is explained step by step: missing since, then when it is due.
    @Test func explainsPendingReminder() {
        var harness = PolicyHarness()
        harness.report(Fixtures.report(.whileInUse, at: "2026-11-15T10:00:00Z"))
        let explanation = harness.policy.explain(harness.record!, now: harness.now, daemonStartedAt: nil)
        #expect(explanation.reasons.map(\.code) == [.episodeOpen, .due])
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
        #expect(explanation.reasons.map(\.code) == [.episodeOpen, .quietHours, .notificationsOff])
        #expect(explanation.reasons[1].text.contains("Europe/Berlin"))
        harness.run(until: Fixtures.date("2026-11-30T00:00:00Z"))
        explanation = harness.policy.explain(harness.record!, now: harness.now, daemonStartedAt: nil)
        #expect(explanation.reasons.last?.code == .suppressed)
        #expect(explanation.nextReminderAt == nil)
    }

    /// A delivered one-off reminder ends the series, and the explanation says why.
    @Test func explainsEndedSeries() {
        var harness = PolicyHarness()
        harness.report(Fixtures.report(.whileInUse, at: "2026-11-15T10:00:00Z"))
        harness.run(until: Fixtures.date("2026-11-30T00:00:00Z"))
        let explanation = harness.policy.explain(harness.record!, now: harness.now, daemonStartedAt: nil)
        #expect(explanation.reasons.map(\.code) == [.episodeOpen, .delivered, .seriesEnded])
        #expect(explanation.reasons[2].text.contains("showRecurringNotification"))
    }
}
