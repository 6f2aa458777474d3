import Foundation
import RemindCore
import RemindTesting
import Testing

struct RecurrenceTests {
    let start = Fixtures.date("2026-11-15T10:00:00Z")

    /// With recurring on, each reminder is due one delay after the previous delivery, even
    /// when that delivery went out late.
    @Test func recurringNextDueIsDeliveryPlusDelay() {
        var harness = PolicyHarness(.recurring())
        harness.report(Fixtures.report(.whileInUse, at: "2026-11-15T10:00:00Z"))
        let lateDelivery = Fixtures.date("2026-11-22T13:30:00Z")
        harness.fire(at: lateDelivery)
        #expect(harness.reminders.count == 1)
        #expect(harness.dueAt == lateDelivery + .days(7))
        harness.run(until: lateDelivery + .days(7))
        #expect(harness.reminders.map(\.sequence) == [1, 2])
        #expect(harness.reminders[1].dueAt == lateDelivery + .days(7))
    }

    /// maxRemindersPerEpisode ends a recurring series once that many were delivered.
    @Test func maxRemindersPerEpisodeEndsSeries() {
        var configuration = PolicyConfiguration.recurring()
        configuration.maxRemindersPerEpisode = 2
        var harness = PolicyHarness(configuration)
        harness.report(Fixtures.report(.whileInUse, at: "2026-11-15T10:00:00Z"))
        harness.run(until: start + .days(100))
        #expect(harness.reminders.count == 2)
        #expect(harness.dueAt == nil)
    }

    /// Suppressed reminders do not count against maxRemindersPerEpisode: only deliveries do.
    @Test func suppressedRemindersDoNotCountAgainstMaximum() {
        var configuration = PolicyConfiguration.recurring()
        configuration.maxRemindersPerEpisode = 1
        var harness = PolicyHarness(configuration)
        harness.report(Fixtures.report(.whileInUse, at: "2026-11-15T10:00:00Z", notifications: .denied))
        harness.run(until: start + .days(30))
        #expect(harness.suppressions == 1)
        harness.report(Fixtures.report(.whileInUse, at: "2026-12-20T10:00:00Z", notifications: .authorized))
        harness.run(until: start + .days(100))
        #expect(harness.reminders.count == 1)
    }

    /// Deliveries of a recurring series are never closer than the trigger delay.
    @Test func recurringDeliveriesAreAtLeastOneDelayApart() {
        var harness = PolicyHarness(.recurring(delay: 3_600))
        harness.report(Fixtures.report(.whileInUse, at: "2026-11-15T10:00:00Z"))
        harness.run(until: start + .days(2))
        let times = harness.reminders.map(\.createdAt)
        #expect(times.count == 48)
        for (earlier, later) in zip(times, times.dropFirst()) {
            #expect(later.timeIntervalSince(earlier) >= 3_600)
        }
    }
}

struct SuppressionTests {
    let start = Fixtures.date("2026-11-15T10:00:00Z")

    /// Notifications denied at the due time: nothing is sent and the suppression is recorded
    /// once, however often the scheduler looks again.
    @Test func deniedNotificationsSuppressOnce() {
        var harness = PolicyHarness()
        harness.report(Fixtures.report(.whileInUse, at: "2026-11-15T10:00:00Z", notifications: .denied))
        let due = Fixtures.date("2026-11-22T10:00:00Z")
        let first = harness.fire(at: due)
        #expect(first.suppressed && first.events.isEmpty)
        #expect(harness.fire(at: due + .hours(1)).changed == false)
        #expect(harness.suppressions == 1)
        #expect(harness.record?.openEpisode?.suppressedCount == 1)
        // Nothing but a report can change it, so the scheduler need not wake for this user.
        #expect(harness.policy.nextWakeAt(harness.record!, daemonStartedAt: nil) == nil)
    }

    /// notDetermined suppresses like denied; unknown and provisional deliver.
    @Test func notDeterminedSuppressesProvisionalDelivers() {
        for (state, delivered) in [
            (NotificationAuthorization.notDetermined, false), (.provisional, true), (.authorized, true),
        ] {
            var harness = PolicyHarness()
            harness.report(Fixtures.report(.whileInUse, at: "2026-11-15T10:00:00Z", notifications: state))
            harness.run(until: start + .days(8))
            #expect(harness.reminders.count == (delivered ? 1 : 0), "notifications \(state)")
        }
        var unknown = PolicyHarness()
        unknown.report(Fixtures.report(.whileInUse, at: "2026-11-15T10:00:00Z"))
        unknown.run(until: start + .days(8))
        #expect(unknown.reminders.count == 1)
    }

    /// Notifications turned on after several missed recurrences yield one reminder at once,
    /// not a burst, and the series continues a delay after it.
    @Test func notificationsOnAfterMissedRecurrencesDeliverOne() {
        var harness = PolicyHarness(.recurring())
        harness.report(Fixtures.report(.whileInUse, at: "2026-11-15T10:00:00Z", notifications: .denied))
        harness.run(until: start + .days(40))
        #expect(harness.suppressions == 1)
        let enabled = Fixtures.date("2026-12-25T09:00:00Z")
        harness.report(Fixtures.report(.whileInUse, at: "2026-12-25T09:00:00Z", notifications: .authorized))
        #expect(
            harness.policy.nextWakeAt(harness.record!, daemonStartedAt: nil) == Fixtures.date("2026-11-22T10:00:00Z"))
        harness.run(until: enabled)
        // The scheduler fires a past wake-up at the moment it sees it: here, at the report.
        #expect(harness.reminders.count == 1)
        #expect(harness.reminders[0].dueAt == Fixtures.date("2026-11-22T10:00:00Z"))
        #expect(harness.dueAt == harness.reminders[0].createdAt + .days(7))
    }

    /// A delivered reminder lists the current errors, including notificationsTurnedOff never
    /// (it would not have been delivered) but precise location when reduced.
    @Test func reminderCarriesCurrentErrors() {
        var harness = PolicyHarness()
        harness.report(Fixtures.report(.allowOnce, at: "2026-11-15T10:00:00Z", accuracy: .reduced))
        harness.run(until: start + .days(8))
        #expect(harness.reminders.first?.errors == [.locationNotAuthorizedAlways, .preciseLocationNotEnabled])
        #expect(harness.reminders.first?.reason == .locationNotAuthorizedAlways)
    }
}
