import Foundation
import RemindTesting
import Testing

@testable import RemindCore

/// `FirePass`, the scheduler's pass every backend runs: the users it fires, their events in
/// order, and a stale user's next wake-up kept after `now`.
struct FirePassTests {
    let start = Fixtures.date("2026-11-15T10:00:00Z")

    /// A user whose reminder is due at the pass: the policy's `fire` outcome, as is.
    func dueSchedule(_ id: String, policy: ReminderPolicy) -> UserSchedule {
        var harness = PolicyHarness(.recurring(delay: 60))
        harness.userID = Fixtures.userID(id)
        harness.report(Fixtures.report(.whileInUse, at: "2026-11-15T10:00:00Z", notifications: .authorized))
        return harness.record!.schedule
    }

    /// Two due users and one whose wake-up has nothing due: the two fired in order with the
    /// events `fire` gives each, the third stale and woken again strictly after `now`.
    @Test func firesDueUsersAndWakesStaleOnesAfterNow() {
        let policy = ReminderPolicy(configuration: .recurring(delay: 60))
        let now = start + .seconds(61)
        let a = dueSchedule("a", policy: policy)
        let b = dueSchedule("b", policy: policy)
        var stale = dueSchedule("c", policy: policy)
        // A wake-up that comes round with nothing due: `wake` gives a time not after `now`.
        stale.userID = Fixtures.userID("c")
        let pass = FirePass.run(
            [a, b, stale], now: now,
            fire: { schedule in
                schedule.userID == stale.userID
                    ? ScheduleFireOutcome(
                        events: [], change: FiredChange(userID: schedule.userID), suppressed: false, heldOut: false)
                    : policy.fire(schedule, now: now, daemonStartedAt: nil)
            },
            wake: { _ in now - .seconds(5) })
        #expect(pass.fired.map { $0.change.userID } == [a.userID, b.userID])
        #expect(pass.events.count == 2)
        #expect(pass.events.map { $0.userID } == [a.userID, b.userID])
        #expect(pass.fired[0].events == policy.fire(a, now: now, daemonStartedAt: nil).events.map(OutboxEvent.init))
        #expect(pass.stale == [FirePass.Stale(userID: stale.userID, wakeAt: now + .seconds(1))])
        #expect(pass.suppressed.isEmpty)
    }

    /// A stale user whose next wake-up is later keeps it; one with none is never woken.
    @Test func staleWakeUpsLaterThanNowAreKept() {
        let policy = ReminderPolicy(configuration: .recurring(delay: 60))
        let now = start + .seconds(61)
        let schedules = [dueSchedule("a", policy: policy), dueSchedule("b", policy: policy)]
        let unchanged: (UserSchedule) -> ScheduleFireOutcome = {
            ScheduleFireOutcome(events: [], change: FiredChange(userID: $0.userID), suppressed: false, heldOut: false)
        }
        let pass = FirePass.run(
            schedules, now: now, fire: unchanged,
            wake: { $0.userID == schedules[0].userID ? now + .seconds(3600) : nil })
        #expect(pass.fired.isEmpty)
        #expect(pass.stale.map { $0.wakeAt } == [now + .seconds(3600), nil])
    }

    /// The policy's own pass fires what `fire` fires, and its stale wake-up is the policy's.
    @Test func thePolicysPassIsItsFire() {
        let policy = ReminderPolicy(configuration: .recurring(delay: 60))
        let schedule = dueSchedule("a", policy: policy)
        let early = start + .seconds(30)
        let pass = policy.firePass([schedule], now: early, daemonStartedAt: start)
        #expect(pass.fired.isEmpty)
        #expect(pass.stale.first?.wakeAt == policy.nextWakeAt(schedule, daemonStartedAt: start))
        let due = start + .seconds(61)
        let fired = policy.firePass([schedule], now: due, daemonStartedAt: start)
        #expect(fired.fired.map { $0.change } == [policy.fire(schedule, now: due, daemonStartedAt: start).change])
    }

    /// The index a backend stores is the policy's reminder and wake-up, with the sequence and
    /// reason of the next reminder.
    @Test func indexIsThePolicysReminderAndWakeUp() {
        let policy = ReminderPolicy(configuration: .recurring(delay: 60))
        let schedule = dueSchedule("a", policy: policy)
        let index = policy.index(schedule, daemonStartedAt: start)
        #expect(index.reminderAt == policy.reminderWakeAt(schedule, daemonStartedAt: start))
        #expect(index.wakeAt == policy.nextWakeAt(schedule, daemonStartedAt: start))
        #expect(index.nextSequence == schedule.deliveredCount + 1)
        #expect(index.reason == .locationNotAuthorizedAlways)
    }

    /// Forgetting closes the open episode as forgotten at the forget, to the millisecond; a
    /// user without one closes nothing.
    @Test func forgetClosesTheOpenEpisodeAsForgotten() throws {
        var harness = PolicyHarness(.recurring(delay: 60))
        harness.report(Fixtures.report(.whileInUse, at: "2026-11-15T10:00:00Z", notifications: .authorized))
        let at = start + .seconds(90) + .milliseconds(1.5)
        let forgotten = harness.policy.forget(harness.record!, at: at)
        let closed = try #require(forgotten.closed)
        #expect(forgotten.userID == harness.userID)
        #expect(closed.outcome == .forgotten)
        #expect(closed.closedAt == at.millisecondPrecision)
        #expect(forgotten.outcomes == [closed])
        harness.report(Fixtures.report(.always, at: "2026-11-15T10:01:00Z", notifications: .authorized))
        #expect(harness.policy.forget(harness.record!, at: at).closed == nil)
    }
}
