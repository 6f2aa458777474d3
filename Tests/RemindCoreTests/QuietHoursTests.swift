import Foundation
import RemindCore
import RemindTesting
import Testing

struct QuietHoursTests {
    let evening = QuietHours(start: 21 * 60, end: 8 * 60)
    let berlin = TimeZone(identifier: "Europe/Berlin")!

    /// A reminder due inside the window waits until its end in the user's local time.
    @Test func dueInsideWindowMovesToEnd() {
        // 23:00 CET is 22:00Z; the window ends at 08:00 CET = 07:00Z the next day.
        #expect(
            evening.release(Fixtures.date("2026-11-21T22:00:00Z"), in: berlin) == Fixtures.date("2026-11-22T07:00:00Z"))
    }

    /// After midnight, inside a window that spans it, the end is the same local day.
    @Test func windowSpanningMidnightEndsSameMorning() {
        // 02:00 CET = 01:00Z.
        #expect(
            evening.release(Fixtures.date("2026-11-22T01:00:00Z"), in: berlin) == Fixtures.date("2026-11-22T07:00:00Z"))
    }

    /// The window is half-open: due exactly at its end goes out at the end; exactly at its
    /// start is delayed; just before the start is untouched.
    @Test func windowIsHalfOpen() {
        let atEnd = Fixtures.date("2026-11-22T07:00:00Z")  // 08:00 CET
        #expect(evening.release(atEnd, in: berlin) == atEnd)
        let atStart = Fixtures.date("2026-11-22T20:00:00Z")  // 21:00 CET
        #expect(evening.release(atStart, in: berlin) == Fixtures.date("2026-11-23T07:00:00Z"))
        let before = Fixtures.date("2026-11-22T19:59:59Z")
        #expect(evening.release(before, in: berlin) == before)
    }

    /// Spring forward (Berlin, 29 March 2026, 02:00 → 03:00) inside the window: the end is
    /// 08:00 CEST, which is 06:00Z, not 07:00Z.
    @Test func springForwardInsideWindow() {
        let due = Fixtures.date("2026-03-28T22:00:00Z")  // 23:00 CET
        #expect(evening.release(due, in: berlin) == Fixtures.date("2026-03-29T06:00:00Z"))
    }

    /// Fall back (Berlin, 25 October 2026, 03:00 → 02:00) inside the window: the end is
    /// 08:00 CET, which is 07:00Z.
    @Test func fallBackInsideWindow() {
        let due = Fixtures.date("2026-10-24T21:00:00Z")  // 23:00 CEST
        #expect(evening.release(due, in: berlin) == Fixtures.date("2026-10-25T07:00:00Z"))
    }

    /// A window whose end falls in the spring-forward gap ends at the first instant after it.
    @Test func endInsideSpringForwardGap() {
        let quiet = QuietHours(start: 1 * 60, end: 2 * 60 + 30)
        let due = Fixtures.date("2026-03-29T00:30:00Z")  // 01:30 CET
        // 02:30 does not exist that night; 03:00 CEST = 01:00Z is the first instant after.
        #expect(quiet.release(due, in: berlin) == Fixtures.date("2026-03-29T01:00:00Z"))
    }

    /// A window within one day (12:00–14:00) only delays times inside it.
    @Test func daytimeWindow() {
        let lunch = QuietHours(start: 12 * 60, end: 14 * 60)
        let utc = TimeZone(identifier: "UTC")!
        #expect(lunch.release(Fixtures.date("2026-11-22T13:15:00Z"), in: utc) == Fixtures.date("2026-11-22T14:00:00Z"))
        #expect(lunch.release(Fixtures.date("2026-11-22T23:00:00Z"), in: utc) == Fixtures.date("2026-11-22T23:00:00Z"))
    }

    /// The policy applies quiet hours in the time zone the user reported, and not at all when
    /// no report named one.
    @Test func policyUsesReportedTimeZone() {
        var configuration = PolicyConfiguration()
        configuration.quietHours = evening
        // Episode starts 22:30Z (23:30 CET): due a week later inside the window.
        var berlinUser = PolicyHarness(configuration)
        berlinUser.report(Fixtures.report(.whileInUse, at: "2026-11-15T22:30:00Z", timeZone: "Europe/Berlin"))
        #expect(berlinUser.dueAt == Fixtures.date("2026-11-23T07:00:00Z"))
        var newYorkUser = PolicyHarness(configuration)
        newYorkUser.report(Fixtures.report(.whileInUse, at: "2026-11-15T22:30:00Z", timeZone: "America/New_York"))
        // 17:30 EST is outside the window.
        #expect(newYorkUser.dueAt == Fixtures.date("2026-11-22T22:30:00Z"))
        var tokyoUser = PolicyHarness(configuration)
        tokyoUser.report(Fixtures.report(.whileInUse, at: "2026-11-15T22:30:00Z", timeZone: "Asia/Tokyo"))
        // 07:30 JST is inside it: 08:00 JST is 23:00Z.
        #expect(tokyoUser.dueAt == Fixtures.date("2026-11-22T23:00:00Z"))
        var unknownZone = PolicyHarness(configuration)
        unknownZone.report(Fixtures.report(.whileInUse, at: "2026-11-15T22:30:00Z"))
        #expect(unknownZone.dueAt == Fixtures.date("2026-11-22T22:30:00Z"))
    }

    /// Users due inside quiet hours are spread after its end by their jitter, not all
    /// reminded in its first second.
    @Test func jitterSpreadsUsersReleasedFromQuietHours() {
        var configuration = PolicyConfiguration()
        configuration.quietHours = evening
        configuration.jitterSeconds = 1_800
        let policy = ReminderPolicy(configuration: configuration)
        var dues = Set<Date>()
        for index in 0..<50 {
            var harness = PolicyHarness(configuration)
            harness.userID = Fixtures.userID("night-\(index)")
            harness.report(Fixtures.report(.whileInUse, at: "2026-11-15T22:30:00Z", timeZone: "Europe/Berlin"))
            let due = harness.dueAt!
            let end = Fixtures.date("2026-11-23T07:00:00Z")
            #expect(due == end + .seconds(Int(policy.jitter(for: harness.userID))))
            dues.insert(due)
        }
        #expect(dues.count > 40)
    }

    /// The time zone is "last known": a later report without one keeps it.
    @Test func timeZoneIsLastKnown() {
        var harness = PolicyHarness()
        harness.report(Fixtures.report(.whileInUse, at: "2026-11-15T10:00:00Z", timeZone: "Europe/Berlin"))
        harness.report(Fixtures.report(.denied, at: "2026-11-16T10:00:00Z"))
        #expect(harness.record?.permissions?.timeZone == "Europe/Berlin")
    }
}

struct SpreadTests {
    let start = Fixtures.date("2026-11-15T10:00:00Z")

    /// Jitter adds a fixed per-user offset below the window, the same in every process.
    @Test func jitterIsStablePerUserAndWithinWindow() {
        var configuration = PolicyConfiguration()
        configuration.jitterSeconds = 3_600
        let policy = ReminderPolicy(configuration: configuration)
        var offsets = Set<TimeInterval>()
        for index in 0..<200 {
            let userID = Fixtures.userID("user-\(index)")
            let jitter = policy.jitter(for: userID)
            #expect(jitter >= 0 && jitter < 3_600)
            #expect(jitter == ReminderPolicy(configuration: configuration).jitter(for: userID))
            offsets.insert(jitter)
        }
        // 200 users over 3,600 slots: a stable hash spreads them; a constant would not.
        #expect(offsets.count > 150)
        // Pinned so a change of hash (which would move every user's reminders) is noticed.
        #expect(
            policy.jitter(for: Fixtures.userID("u-42"))
                == TimeInterval(StableHash.offset(for: "u-42", salt: "jitter", window: 3_600)))
        var harness = PolicyHarness(configuration)
        harness.report(Fixtures.report(.whileInUse, at: "2026-11-15T10:00:00Z"))
        #expect(harness.dueAt == start + .days(7) + .seconds(Int(policy.jitter(for: harness.userID))))
    }

    /// With no jitter window every user is due at exactly start + delay.
    @Test func zeroJitterAddsNothing() {
        let policy = ReminderPolicy()
        #expect(policy.jitter(for: Fixtures.userID("anyone")) == 0)
    }

    /// Reminders that came due while the daemon was down are spread after start-up by a
    /// stable per-user offset; without a spread they go out at once.
    @Test func catchUpSpreadsOverdueReminders() {
        var configuration = PolicyConfiguration()
        configuration.catchUpSpreadSeconds = 600
        var harness = PolicyHarness(configuration)
        harness.report(Fixtures.report(.whileInUse, at: "2026-11-15T10:00:00Z"))
        let restart = Fixtures.date("2026-11-25T00:00:00Z")
        let wake = harness.policy.reminderWakeAt(harness.record!, daemonStartedAt: restart)!
        #expect(wake >= restart && wake < restart + .seconds(600))
        #expect(wake == restart + .seconds(Int(harness.policy.catchUpOffset(for: harness.userID))))
        // Not overdue at start-up: no spread.
        let early = Fixtures.date("2026-11-20T00:00:00Z")
        #expect(harness.policy.reminderWakeAt(harness.record!, daemonStartedAt: early) == start + .days(7))
        // Without a spread the overdue reminder is due at once (its due time is past).
        let plain = ReminderPolicy()
        #expect(plain.reminderWakeAt(harness.record!, daemonStartedAt: restart) == start + .days(7))
        // The event still names the original due time.
        harness.daemonStartedAt = restart
        harness.fire(at: wake)
        #expect(harness.reminders.first?.dueAt == start + .days(7))
        #expect(harness.reminders.first?.createdAt == wake)
    }

    /// Different users land at different places in the catch-up spread.
    @Test func catchUpOffsetsDifferBetweenUsers() {
        var configuration = PolicyConfiguration()
        configuration.catchUpSpreadSeconds = 3_600
        let policy = ReminderPolicy(configuration: configuration)
        let offsets = Set((0..<100).map { policy.catchUpOffset(for: Fixtures.userID("u\($0)")) })
        #expect(offsets.count > 90)
    }
}

struct HeartbeatTests {
    let start = Fixtures.date("2026-11-15T10:00:00Z")

    /// Heartbeats are off by default.
    @Test func heartbeatOffByDefault() {
        var harness = PolicyHarness()
        harness.report(Fixtures.report(.always, at: "2026-11-15T10:00:00Z"))
        #expect(harness.policy.heartbeatDueAt(harness.record!) == nil)
    }

    /// A silent user gets a heartbeat once per interval, named by its due time; a report
    /// restarts the count.
    @Test func heartbeatRepeatsOncePerIntervalOfSilence() {
        var harness = PolicyHarness(PolicyConfiguration(heartbeatIntervalSeconds: 21_600))
        harness.report(Fixtures.report(.always, at: "2026-11-15T10:00:00Z"))
        harness.run(until: start + .hours(18))
        #expect(harness.heartbeats.map(\.dueAt) == [start + .hours(6), start + .hours(12), start + .hours(18)])
        #expect(harness.heartbeats[0].id == "u-42/heartbeat/\((start + .hours(6)).unixSeconds)")
        #expect(harness.heartbeats.allSatisfy { $0.lastReportAt == start })
        harness.report(Fixtures.report(.always, at: "2026-11-16T05:00:00Z"))
        harness.run(until: start + .hours(24))
        #expect(harness.heartbeats.count == 3)
        #expect(harness.policy.heartbeatDueAt(harness.record!) == Fixtures.date("2026-11-16T11:00:00Z"))
    }

    /// After a long outage one heartbeat goes out, not one per missed interval.
    @Test func heartbeatAfterOutageSendsOne() {
        var harness = PolicyHarness(PolicyConfiguration(heartbeatIntervalSeconds: 3_600))
        harness.report(Fixtures.report(.always, at: "2026-11-15T10:00:00Z"))
        harness.fire(at: start + .hours(10) + .minutes(30))
        #expect(harness.heartbeats.count == 1)
        #expect(harness.heartbeats[0].dueAt == start + .hours(10))
        #expect(harness.policy.heartbeatDueAt(harness.record!) == start + .hours(11))
    }
}
