import Foundation
import RemindCore
import RemindTesting
import Testing

struct EpisodeTests {
    let start = Fixtures.date("2026-11-15T10:00:00Z")

    /// The first report without Always access opens an episode at its observedAt; the first
    /// reminder is due a trigger delay later.
    @Test func firstReportWithoutAlwaysOpensEpisodeDueAfterDelay() {
        var harness = PolicyHarness()
        let outcome = harness.report(Fixtures.report(.whileInUse, at: "2026-11-15T10:00:00Z"))
        #expect(outcome.transitions == [.opened(startedAt: start)])
        #expect(harness.record?.openEpisode?.startedAt == start)
        #expect(harness.dueAt == Fixtures.date("2026-11-22T10:00:00Z"))
    }

    /// A first report with Always access opens nothing and schedules nothing.
    @Test func reportWithAlwaysOpensNoEpisode() {
        var harness = PolicyHarness()
        harness.report(Fixtures.report(.always, at: "2026-11-15T10:00:00Z"))
        #expect(harness.record?.openEpisode == nil)
        #expect(harness.dueAt == nil)
        #expect(harness.policy.nextWakeAt(harness.record!, daemonStartedAt: nil) == nil)
    }

    /// Location Services off denies Always access even with location == always.
    @Test func locationServicesOffOpensEpisode() {
        var harness = PolicyHarness()
        harness.report(Fixtures.report(.always, at: "2026-11-15T10:00:00Z", services: false))
        harness.run(until: start + .days(8))
        #expect(harness.reminders.map(\.reason) == [.locationServicesTurnedOff])
    }

    /// A reminder fires at exactly its due time, not a millisecond before.
    @Test func reminderFiresAtExactlyDueTime() {
        var harness = PolicyHarness()
        harness.report(Fixtures.report(.whileInUse, at: "2026-11-15T10:00:00Z"))
        let due = Fixtures.date("2026-11-22T10:00:00Z")
        #expect(harness.fire(at: due - .milliseconds(1)).events.isEmpty)
        let fired = harness.fire(at: due)
        #expect(fired.events.count == 1)
        #expect(harness.reminders.first?.dueAt == due)
        #expect(harness.reminders.first?.createdAt == due)
    }

    /// A report observed exactly at the due time with Always access ends the episode before the
    /// reminder goes out: nothing is sent, nothing withdrawn.
    @Test func alwaysReportedAtExactlyDueTimeSendsNothing() {
        var harness = PolicyHarness()
        harness.report(Fixtures.report(.whileInUse, at: "2026-11-15T10:00:00Z"))
        harness.report(Fixtures.report(.always, at: "2026-11-22T10:00:00Z"))
        harness.run(until: start + .days(30))
        #expect(harness.events.isEmpty)
    }

    /// Always granted one second before the due time cancels the reminder.
    @Test func alwaysGrantedOneSecondBeforeDueCancelsReminder() {
        var harness = PolicyHarness()
        harness.report(Fixtures.report(.whileInUse, at: "2026-11-15T10:00:00Z"))
        let outcome = harness.report(Fixtures.report(.always, at: "2026-11-22T09:59:59Z"))
        #expect(outcome.transitions.count == 1)
        #expect(harness.dueAt == nil)
        harness.run(until: start + .days(30))
        #expect(harness.events.isEmpty)
        #expect(harness.record?.episodes.first?.closedAt == Fixtures.date("2026-11-22T09:59:59Z"))
    }

    /// Without recurring, an episode gets exactly one reminder however long it lasts.
    @Test func nonRecurringEpisodeGetsOneReminder() {
        var harness = PolicyHarness()
        harness.report(Fixtures.report(.whileInUse, at: "2026-11-15T10:00:00Z"))
        harness.run(until: start + .days(90))
        #expect(harness.reminders.count == 1)
        #expect(harness.dueAt == nil)
    }

    /// Closing an episode after deliveries emits one withdraw naming every delivered reminder.
    @Test func closingEpisodeWithdrawsDeliveredReminders() {
        var harness = PolicyHarness(.recurring())
        harness.report(Fixtures.report(.denied, at: "2026-11-15T10:00:00Z"))
        harness.run(until: start + .days(15))
        #expect(harness.reminders.map(\.id) == ["u-42/1794736800/1", "u-42/1794736800/2"])
        let closing = harness.report(Fixtures.report(.always, at: "2026-11-30T12:00:00Z"))
        #expect(harness.withdrawals.count == 1)
        let withdraw = harness.withdrawals[0]
        #expect(withdraw.id == "u-42/1794736800/withdraw")
        #expect(withdraw.reminderIDs == ["u-42/1794736800/1", "u-42/1794736800/2"])
        #expect(withdraw.episodeStartedAt == start)
        #expect(withdraw.createdAt == Fixtures.date("2026-11-30T12:00:00Z"))
        #expect(closing.events.count == 1)
    }

    /// An episode closed before any delivery is withdrawn silently.
    @Test func closingEpisodeWithoutDeliveriesEmitsNothing() {
        var harness = PolicyHarness()
        harness.report(Fixtures.report(.whileInUse, at: "2026-11-15T10:00:00Z"))
        let outcome = harness.report(Fixtures.report(.always, at: "2026-11-16T10:00:00Z"))
        #expect(outcome.events.isEmpty)
        #expect(
            outcome.transitions == [
                .closed(startedAt: start, closedAt: Fixtures.date("2026-11-16T10:00:00Z"), delivered: 0)
            ])
    }

    /// A second episode after Always was granted and lost again starts its own count and ids.
    @Test func newEpisodeAfterAlwaysStartsAfresh() {
        var harness = PolicyHarness()
        harness.report(Fixtures.report(.whileInUse, at: "2026-11-15T10:00:00Z"))
        harness.run(until: start + .days(8))
        harness.report(Fixtures.report(.always, at: "2026-11-24T10:00:00Z"))
        harness.report(Fixtures.report(.allowOnce, at: "2026-11-25T10:00:00Z"))
        harness.run(until: start + .days(40))
        #expect(harness.reminders.map(\.sequence) == [1, 1])
        #expect(harness.reminders[1].episodeStartedAt == Fixtures.date("2026-11-25T10:00:00Z"))
        #expect(harness.reminders[1].dueAt == Fixtures.date("2026-12-02T10:00:00Z"))
        #expect(harness.record?.episodes.count == 2)
    }

    /// A late report (observed before the episode's start, received after) moves the start
    /// earlier, and with it the due time.
    @Test func lateReportMovesEpisodeStartEarlier() {
        var harness = PolicyHarness()
        harness.report(Fixtures.report(.whileInUse, at: "2026-11-15T10:00:00Z"))
        let late = harness.report(
            Fixtures.report(.denied, at: "2026-11-13T10:00:00Z"), receivedAt: Fixtures.date("2026-11-15T11:00:00Z"))
        #expect(late.transitions == [.movedStart(from: start, to: Fixtures.date("2026-11-13T10:00:00Z"))])
        #expect(harness.dueAt == Fixtures.date("2026-11-20T10:00:00Z"))
        // The newer observation still decides the current state.
        #expect(harness.record?.permissions?.location == .whileInUse)
    }

    /// A late report never overrides a newer observation: Always granted later stays in force.
    @Test func lateReportNeverOverridesNewerObservation() {
        var harness = PolicyHarness()
        harness.report(Fixtures.report(.always, at: "2026-11-15T10:00:00Z"))
        harness.report(
            Fixtures.report(.whileInUse, at: "2026-11-14T10:00:00Z"), receivedAt: Fixtures.date("2026-11-15T11:00:00Z"))
        #expect(harness.record?.permissions?.location == .always)
        #expect(harness.record?.openEpisode == nil)
        #expect(harness.record?.history.map(\.permissions.location) == [.always, .whileInUse])
    }

    /// A late Always report inside an open episode moves its start to the next observation
    /// without Always access; the reminder already delivered stays with it (no second one).
    @Test func lateAlwaysInsideEpisodeMovesItsStartLater() {
        var harness = PolicyHarness()
        harness.report(Fixtures.report(.whileInUse, at: "2026-11-01T10:00:00Z"))
        harness.run(until: Fixtures.date("2026-11-09T00:00:00Z"))
        #expect(harness.reminders.count == 1)
        harness.report(Fixtures.report(.whileInUse, at: "2026-11-10T10:00:00Z"))
        let late = harness.report(
            Fixtures.report(.always, at: "2026-11-05T10:00:00Z"), receivedAt: Fixtures.date("2026-11-10T11:00:00Z"))
        #expect(
            late.transitions == [
                .movedStart(from: Fixtures.date("2026-11-01T10:00:00Z"), to: Fixtures.date("2026-11-10T10:00:00Z"))
            ])
        #expect(harness.record?.openEpisode?.startedAt == Fixtures.date("2026-11-10T10:00:00Z"))
        #expect(harness.record?.episodes.count == 1)
        #expect(harness.withdrawals.isEmpty)
        harness.run(until: Fixtures.date("2026-12-30T00:00:00Z"))
        #expect(harness.reminders.count == 1)
    }

    /// Reports identical to the current state add no history entry but count and move
    /// lastReportAt and the observation time.
    @Test func identicalReportAddsNoHistoryEntry() {
        var harness = PolicyHarness()
        harness.report(Fixtures.report(.whileInUse, at: "2026-11-15T10:00:00Z", notifications: .authorized))
        let again = harness.report(Fixtures.report(.whileInUse, at: "2026-11-16T10:00:00Z"))
        #expect(!again.changed)
        #expect(harness.record?.history.count == 1)
        #expect(harness.record?.reportCount == 2)
        #expect(harness.record?.lastReportAt == Fixtures.date("2026-11-16T10:00:00Z"))
        #expect(harness.record?.observedAt == Fixtures.date("2026-11-16T10:00:00Z"))
        // Absent notifications meant "last known", so the report was identical.
        #expect(harness.record?.permissions?.notifications == .authorized)
    }

    /// History keeps at most history.maxEntries changes, dropping the oldest.
    @Test func historyIsBoundedDroppingOldest() {
        var harness = PolicyHarness(PolicyConfiguration(historyMaxEntries: 3))
        let locations: [LocationAuthorization] = [.denied, .whileInUse, .allowOnce, .always, .denied]
        for (day, location) in locations.enumerated() {
            harness.report(Fixtures.report(location, at: "2026-11-1\(day)T10:00:00Z"))
        }
        #expect(harness.record?.history.map(\.permissions.location) == [.denied, .always, .allowOnce])
    }

    /// Truncating old history never moves an open episode's start later.
    @Test func truncatedHistoryKeepsEpisodeStart() {
        var harness = PolicyHarness(PolicyConfiguration(historyMaxEntries: 2))
        let locations: [LocationAuthorization] = [.denied, .whileInUse, .allowOnce, .denied]
        for (day, location) in locations.enumerated() {
            harness.report(Fixtures.report(location, at: "2026-11-1\(day)T10:00:00Z"))
        }
        #expect(harness.record?.openEpisode?.startedAt == Fixtures.date("2026-11-10T10:00:00Z"))
        #expect(harness.record?.episodes.count == 1)
    }
}
