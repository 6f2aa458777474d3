import Foundation
import RemindCore
import RemindTesting
import Testing

/// `notification.remindFor`: which errors open an episode and which reason each reminder
/// carries (docs/configuration.md). The default, errors 1–2, is today's "without Always access".
struct RemindForTests {
    let start = Fixtures.date("2026-11-15T10:00:00Z")

    static func configuration(
        _ remindFor: [PermissionErrorType], recurring: Bool = false, copy: LocationNotificationConfiguration? = nil
    ) -> PolicyConfiguration {
        var notification = copy ?? LocationNotificationConfiguration()
        notification.showRecurringNotification = recurring
        notification.remindFor = PermissionErrorSet(remindFor)
        return PolicyConfiguration(notification: notification)
    }

    static let precise = configuration([
        .locationServicesTurnedOff, .locationNotAuthorizedAlways, .preciseLocationNotEnabled,
    ])

    /// With the default, Always with reduced accuracy opens nothing, as before.
    @Test func defaultIgnoresReducedAccuracy() {
        var harness = PolicyHarness()
        harness.report(Fixtures.report(.always, at: "2026-11-15T10:00:00Z", accuracy: .reduced))
        #expect(harness.record?.openEpisode == nil)
        harness.run(until: start + .days(30))
        #expect(harness.reminders.isEmpty)
    }

    /// Listing precise: a user with Always but reduced accuracy is reminded with reason
    /// `preciseLocationNotEnabled`, and the episode closes (with a withdraw) when accuracy
    /// becomes full.
    @Test func reducedAccuracyIsRemindedUntilFull() {
        var harness = PolicyHarness(Self.precise)
        let opened = harness.report(Fixtures.report(.always, at: "2026-11-15T10:00:00Z", accuracy: .reduced))
        #expect(opened.transitions == [.opened(startedAt: start)])
        harness.run(until: start + .days(8))
        #expect(harness.reminders.map(\.reason) == [.preciseLocationNotEnabled])
        #expect(harness.reminders.first?.errors == [.preciseLocationNotEnabled])
        let closedAt = start + .days(9)
        let closing = harness.report(
            PermissionReport(location: .always, accuracy: .full, observedAt: closedAt))
        #expect(closing.transitions == [.closed(startedAt: start, closedAt: closedAt, delivered: 1)])
        #expect(harness.withdrawals.map(\.reminderIDs) == [[harness.reminders[0].id]])
        #expect(harness.record?.openEpisode == nil)
    }

    /// The reason may change inside one episode: each reminder carries the reason current at
    /// its due time, the episode keeps its start, and its close withdraws every reminder.
    @Test func reasonChangesInsideOneEpisode() {
        var harness = PolicyHarness(
            Self.configuration(
                [.locationServicesTurnedOff, .locationNotAuthorizedAlways, .preciseLocationNotEnabled], recurring: true)
        )
        harness.report(Fixtures.report(.whileInUse, at: "2026-11-15T10:00:00Z", accuracy: .reduced))
        harness.run(until: start + .days(7))
        // The user grants Always but keeps approximate location: still the same episode.
        let moved = harness.report(
            PermissionReport(location: .always, accuracy: .reduced, observedAt: start + .days(8)))
        #expect(moved.transitions.isEmpty)
        #expect(harness.record?.openEpisode?.startedAt == start)
        harness.run(until: start + .days(14))
        // Location Services off outranks precise.
        harness.report(
            PermissionReport(
                location: .always, accuracy: .reduced, locationServices: false, observedAt: start + .days(15)))
        harness.run(until: start + .days(21))
        #expect(
            harness.reminders.map(\.reason) == [
                .locationNotAuthorizedAlways, .preciseLocationNotEnabled, .locationServicesTurnedOff,
            ])
        #expect(Set(harness.reminders.map(\.episodeStartedAt)) == [start])
        harness.report(PermissionReport(location: .always, observedAt: start + .days(22)))
        #expect(harness.withdrawals.map(\.reminderIDs) == [harness.reminders.map(\.id)])
    }

    /// An episode stays open while any listed error is present: Always granted with precise
    /// listed and accuracy reduced does not close it; only the last listed error going does.
    @Test func episodeOpenWhileAnyListedErrorIsPresent() {
        var harness = PolicyHarness(
            Self.configuration([.locationNotAuthorizedAlways, .motionNotAuthorized]))
        harness.report(Fixtures.report(.whileInUse, at: "2026-11-15T10:00:00Z", motion: .denied))
        harness.report(Fixtures.report(.always, at: "2026-11-15T11:00:00Z"))
        #expect(harness.record?.openEpisode?.startedAt == start)
        harness.run(until: start + .days(8))
        #expect(harness.reminders.map(\.reason) == [.motionNotAuthorized])
        let closed = harness.report(Fixtures.report(.always, at: "2026-11-24T10:00:00Z", motion: .authorized))
        #expect(closed.transitions.count == 1)
        #expect(harness.record?.openEpisode == nil)
    }

    /// Errors not listed open nothing: with only motion listed, a user without Always access
    /// but with motion is never reminded.
    @Test func unlistedErrorsOpenNothing() {
        var harness = PolicyHarness(Self.configuration([.motionNotAuthorized]))
        harness.report(Fixtures.report(.denied, at: "2026-11-15T10:00:00Z", services: false, motion: .authorized))
        harness.run(until: start + .days(30))
        #expect(harness.record?.openEpisode == nil)
        #expect(harness.reminders.isEmpty)
        let explanation = harness.policy.explain(harness.record!, now: harness.now, daemonStartedAt: nil)
        #expect(explanation.reasons.map(\.code) == [.nothingToRemind, .push])
    }

    /// A reload that takes an open episode's errors out of `remindFor` leaves it with nothing
    /// to remind of; the user's next report, even an identical one, closes it.
    @Test func reloadWithoutTheReasonStopsTheEpisode() {
        var harness = PolicyHarness(Self.precise)
        harness.report(Fixtures.report(.always, at: "2026-11-15T10:00:00Z", accuracy: .reduced))
        #expect(harness.dueAt != nil)
        harness.policy = ReminderPolicy(configuration: PolicyConfiguration())
        #expect(harness.dueAt == nil)
        #expect(harness.policy.nextWakeAt(harness.record!, daemonStartedAt: nil) == nil)
        let outcome = harness.report(Fixtures.report(.always, at: "2026-11-15T11:00:00Z", accuracy: .reduced))
        #expect(outcome.changed)
        #expect(harness.record?.openEpisode == nil)
    }

    /// The reminder's words come from the copy set, for the reason and the user's locale.
    @Test func reminderTextFollowsReasonAndLocale() {
        let copy = LocationNotificationConfiguration(
            byReason: [.preciseLocationNotEnabled: .init(notificationDescription: "Turn on Precise Location.")],
            localizations: ["de": .init(notificationTitle: "Die App kann keine Fahrten aufzeichnen")])
        var harness = PolicyHarness(
            Self.configuration(
                [.locationNotAuthorizedAlways, .preciseLocationNotEnabled], copy: copy))
        harness.report(
            Fixtures.report(.always, at: "2026-11-15T10:00:00Z", accuracy: .reduced, locale: "de-CH"))
        harness.run(until: start + .days(8))
        #expect(harness.reminders.map(\.title) == ["Die App kann keine Fahrten aufzeichnen"])
        #expect(harness.reminders.map(\.body) == ["Turn on Precise Location."])
    }

    /// `explain` names the precise reason rather than "Always access missing".
    @Test func explainNamesThePreciseReason() {
        var harness = PolicyHarness(Self.precise)
        harness.report(Fixtures.report(.always, at: "2026-11-15T10:00:00Z", accuracy: .reduced))
        let explanation = harness.policy.explain(harness.record!, now: harness.now, daemonStartedAt: nil)
        #expect(explanation.reasons.map(\.code) == [.episodeOpen, .due, .push])
        #expect(explanation.reasons[0].text.contains("precise location is off"))
    }
}
