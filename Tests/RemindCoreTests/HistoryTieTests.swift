import Foundation
import RemindCore
import RemindTesting
import Testing

/// Reports observed at one instant fold in the order received, and each change is a history
/// entry: a bulk batch or two single reports with the same `observedAt` keep both.
struct HistoryTieTests {
    let start = Fixtures.date("2026-11-15T10:00:00Z")

    /// While in use, then Always at the same instant: two entries, Always the newest; the
    /// episode the first opened closes at that instant.
    @Test func tiedReportsAreEachAChangeInTheOrderReceived() {
        var harness = PolicyHarness()
        harness.report(Fixtures.report(.whileInUse, at: "2026-11-15T10:00:00Z"), receivedAt: start + .seconds(5))
        let outcome = harness.report(
            Fixtures.report(.always, at: "2026-11-15T10:00:00Z"), receivedAt: start + .seconds(6))
        let history = harness.record!.history
        #expect(outcome.changed)
        #expect(history.map(\.permissions.location) == [.always, .whileInUse])
        #expect(history.map(\.observedAt) == [start, start])
        #expect(harness.record?.permissions?.location == .always)
        #expect(harness.record?.openEpisode == nil)
        #expect(harness.record?.episodes.first?.closedAt == start)
        #expect(outcome.transitions == [.closed(startedAt: start, closedAt: start, delivered: 0)])
    }

    /// The other order: Always, then While in use at the same instant: the episode is open
    /// from that instant, and the history has both.
    @Test func aTiedReportReceivedLaterIsTheCurrentState() {
        var harness = PolicyHarness()
        harness.report(Fixtures.report(.always, at: "2026-11-15T10:00:00Z"), receivedAt: start + .seconds(5))
        harness.report(Fixtures.report(.whileInUse, at: "2026-11-15T10:00:00Z"), receivedAt: start + .seconds(6))
        #expect(harness.record!.history.map(\.permissions.location) == [.whileInUse, .always])
        #expect(harness.record?.openEpisode?.startedAt == start)
        #expect(harness.dueAt == start + .days(7))
    }

    /// A report identical to the newest tied entry adds nothing; one identical to the older
    /// tied entry is a third change (received last); a late report lands before all of them.
    @Test func furtherTiesAndLateReportsKeepTheOrder() {
        var harness = PolicyHarness()
        harness.report(Fixtures.report(.whileInUse, at: "2026-11-15T10:00:00Z"))
        harness.report(Fixtures.report(.denied, at: "2026-11-15T10:00:00Z"))
        #expect(!harness.report(Fixtures.report(.denied, at: "2026-11-15T10:00:00Z")).changed)
        harness.report(Fixtures.report(.whileInUse, at: "2026-11-15T10:00:00Z"))
        harness.report(Fixtures.report(.always, at: "2026-11-15T09:00:00Z"))
        #expect(
            harness.record!.history.map(\.permissions.location) == [.whileInUse, .denied, .whileInUse, .always])
        #expect(harness.record?.openEpisode?.startedAt == start)
    }
}
