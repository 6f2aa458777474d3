import Foundation
import RemindCore
import RemindTesting
import Testing

/// The activity histogram and the send time in the user's active hour.
struct SendTimeTests {
    static func active(maxDelay: Int64 = 86_400, minReports: Int = 5, holdout: Double = 0) -> PolicyConfiguration {
        PolicyConfiguration(
            notification: .init(
                notificationTriggerDelay: 86_400,
                sendTime: .active(.init(maxDelaySeconds: maxDelay, minReports: minReports, holdoutPercent: holdout))))
    }

    /// Counts go by local hour; past 64 all are halved; ties go to the earliest hour.
    @Test func theHistogramCountsLocalHoursAndHalves() {
        var histogram = ActivityHistogram()
        #expect(histogram.mostActiveHour == nil)
        histogram.add(observedAt: Fixtures.date("2026-07-01T18:30:00Z"), timeZone: "Europe/Berlin")
        #expect(histogram.counts[20] == 1)
        histogram.add(hour: 3)
        #expect(histogram.mostActiveHour == 3)
        for _ in 0..<63 { histogram.add(hour: 9) }
        #expect(histogram.total == 65 / 2 + 0 || histogram.total <= 64)
        #expect(histogram.counts[9] == 31)
        #expect(histogram.mostActiveHour == 9)
        #expect(ActivityHistogram.hour(of: Fixtures.date("2026-01-01T23:59:59Z"), timeZone: nil) == 23)
        #expect(ActivityHistogram.hour(of: Fixtures.date("2026-01-01T20:00:00Z"), timeZone: "Asia/Kolkata") == 1)
    }

    /// The start of an hour's next occurrence, across a daylight saving change too.
    @Test func theNextOccurrenceOfAnHour() {
        let due = Fixtures.date("2026-03-28T10:15:00Z")  // 11:15 in Berlin, the day before summer time
        let next = SendTimeChoice.next(hour: 9, after: due, timeZone: "Europe/Berlin")
        #expect(next.date == Fixtures.date("2026-03-29T07:00:00Z"))  // 09:00 CEST
        #expect(!next.inside)
        #expect(SendTimeChoice.next(hour: 11, after: due, timeZone: "Europe/Berlin").inside)
        #expect(SendTimeChoice.next(hour: 18, after: due, timeZone: nil).date == Fixtures.date("2026-03-28T18:00:00Z"))
    }

    /// A user with enough reports at 19h gets the reminder at 19:00 after its due time.
    @Test func aReminderWaitsForTheUsersActiveHour() {
        var harness = PolicyHarness(Self.active())
        for day in 1...6 {
            harness.report(Fixtures.report(.whileInUse, at: "2026-11-0\(day)T19:10:00Z"))
        }
        #expect(harness.record!.activity.mostActiveHour == 19)
        // The episode opened at the first report; due a day later at 19:10, inside the hour.
        #expect(harness.dueAt == Fixtures.date("2026-11-02T19:10:00Z"))
        var early = PolicyHarness(Self.active())
        for day in 1...6 { early.report(Fixtures.report(.whileInUse, at: "2026-11-0\(day)T19:10:00Z")) }
        early.report(Fixtures.report(.whileInUse, at: "2026-11-06T08:00:00Z"))
        #expect(early.record!.schedule.activeHour == 19)
        #expect(
            early.policy.sendTime(for: Fixtures.date("2026-11-07T08:00:00Z"), early.record!.schedule).sendAt
                == Fixtures.date("2026-11-07T19:00:00Z"))
    }

    /// Too few reports: the population's hour; none known: the due time.
    @Test func fewReportsUseThePopulationsHour() {
        var configuration = Self.active(minReports: 5)
        var harness = PolicyHarness(configuration)
        harness.report(Fixtures.report(.whileInUse, at: "2026-11-01T10:00:00Z"))
        #expect(harness.dueAt == Fixtures.date("2026-11-02T10:00:00Z"))
        let schedule = harness.record!.schedule
        #expect(harness.policy.sendTime(for: harness.dueAt!, schedule).why == .noActivity)
        configuration.populationActiveHour = 21
        let policy = ReminderPolicy(configuration: configuration)
        let choice = policy.sendTime(for: Fixtures.date("2026-11-02T10:00:00Z"), schedule)
        #expect(choice.sendAt == Fixtures.date("2026-11-02T21:00:00Z"))
        #expect(choice.why == .movedToActiveHour(hour: 21, own: false))
        #expect(policy.reminderDueAt(schedule) == Fixtures.date("2026-11-02T21:00:00Z"))
    }

    /// An hour further away than `maxDelaySeconds` leaves the due time.
    @Test func anHourTooFarAwayKeepsTheDueTime() {
        var configuration = Self.active(maxDelay: 3_600, minReports: 0)
        configuration.populationActiveHour = 21
        let policy = ReminderPolicy(configuration: configuration)
        var harness = PolicyHarness(configuration)
        harness.report(Fixtures.report(.whileInUse, at: "2026-11-01T10:00:00Z"))
        let choice = policy.sendTime(for: Fixtures.date("2026-11-02T10:00:00Z"), harness.record!.schedule)
        #expect(choice.sendAt == Fixtures.date("2026-11-02T10:00:00Z"))
        #expect(choice.why == .tooFar(hour: 10, own: true) || choice.why == .insideActiveHour(hour: 10, own: true))
    }

    /// Quiet hours apply after the send time.
    @Test func quietHoursApplyAfterTheSendTime() throws {
        var configuration = Self.active(minReports: 0)
        configuration.quietHours = QuietHours(start: 21 * 60, end: 8 * 60)
        var harness = PolicyHarness(configuration)
        for day in 1...3 {
            harness.report(Fixtures.report(.whileInUse, at: "2026-11-0\(day)T22:30:00Z", timeZone: "UTC"))
        }
        #expect(harness.dueAt == Fixtures.date("2026-11-03T08:00:00Z"))
    }

    /// Users in the send-time holdout get the due time; the share follows the percentage.
    @Test func theSendTimeHoldoutGetsTheDueTime() {
        let sendTime = SendTime.active(.init(holdoutPercent: 20))
        let users = (0..<10_000).map { Fixtures.userID("user-\($0)") }
        let due = users.count { sendTime.arm(for: $0) == .due }
        #expect((1_850...2_150).contains(due), "\(due)")
        #expect(SendTime.due.arm(for: users[0]) == .due)
    }

    /// Repeats count in the histogram when folded, in the user's zone, once.
    @Test func repeatsCountWhenFolded() throws {
        var harness = PolicyHarness(Self.active())
        harness.report(Fixtures.report(.whileInUse, at: "2026-11-01T07:10:00Z", timeZone: "Europe/Berlin"))
        var pending = PendingRepeats()
        for minute in 0..<3 {
            pending.add(
                Fixtures.report(.whileInUse, at: "2026-11-01T18:0\(minute):00Z"),
                receivedAt: Fixtures.date("2026-11-01T19:00:00Z"))
        }
        pending.add(
            Fixtures.report(.whileInUse, at: "2026-11-01T19:30:00Z"), receivedAt: Fixtures.date("2026-11-01T19:40:00Z"))
        var record = harness.record!
        let logged = LoggedRepeats(userID: record.userID, reportCount: record.reportCount + 4, repeats: pending)
        var writer = JSONWriter()
        logged.write(to: &writer)
        guard case .object(let object) = try JSONParser.parse(writer.bytes) else {
            Issue.record("not an object"); return
        }
        let decoded = try LoggedRepeats(object: object)
        record.fold(decoded)
        #expect(record.activity.counts[8] == 1)
        #expect(record.activity.counts[19] == 3)
        #expect(record.activity.counts[20] == 1)
        record.fold(decoded)
        #expect(record.activity.total == 5)
    }
}
