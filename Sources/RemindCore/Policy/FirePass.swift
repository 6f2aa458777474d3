import Foundation

/// One pass of the scheduler over the users due at `now`, decided without I/O: a backend takes
/// the due users' schedules, hands them to the pass (`ReminderPolicy.firePass`) and persists
/// what comes back, so the loop and its rules are written once for every backend.
public struct FirePass: Sendable, Equatable {
    /// A user the pass changed.
    public struct Fired: Sendable, Equatable {
        /// What to record on the user (a delivery, a suppression, a heartbeat).
        public var change: FiredChange
        /// The events to send, to be durable with the change.
        public var events: [OutboxEvent]
        /// A due reminder was suppressed because notifications are off.
        public var suppressed: Bool
    }

    /// A user whose wake-up had nothing due after all (a reminder moved by a later report, a
    /// quiet hour): they wake again at `wakeAt`, never at or before the pass's `now` so a pass
    /// cannot spin on them; nil when nothing more is due.
    public struct Stale: Sendable, Equatable {
        public var userID: UserID
        public var wakeAt: Date?
    }

    /// The users the pass changed, in the order their schedules were given.
    public var fired: [Fired] = []
    public var stale: [Stale] = []

    public init() {}

    /// Every event of the pass, in order.
    public var events: [OutboxEvent] { fired.flatMap(\.events) }
    /// The users whose reminder was suppressed.
    public var suppressed: [UserID] { fired.filter(\.suppressed).map(\.change.userID) }

    /// The pass over `schedules`: `fire` on each, and for one it leaves unchanged the wake-up
    /// `wake` computes, moved past `now` when it is not later.
    public static func run(
        _ schedules: [UserSchedule], now: Date, fire: (UserSchedule) -> ScheduleFireOutcome,
        wake: (UserSchedule) -> Date?
    ) -> FirePass {
        var pass = FirePass()
        for schedule in schedules {
            let outcome = fire(schedule)
            guard outcome.changed else {
                let next = wake(schedule).map { $0 <= now ? now.addingTimeInterval(1) : $0 }
                pass.stale.append(Stale(userID: schedule.userID, wakeAt: next))
                continue
            }
            pass.fired.append(
                Fired(
                    change: outcome.change, events: outcome.events.map(OutboxEvent.init), suppressed: outcome.suppressed
                ))
        }
        return pass
    }
}

extension ReminderPolicy {
    /// The scheduler's pass over the users due at `now` (`FirePass`).
    public func firePass(_ schedules: [UserSchedule], now: Date, daemonStartedAt: Date) -> FirePass {
        FirePass.run(
            schedules, now: now, fire: { fire($0, now: now, daemonStartedAt: daemonStartedAt) },
            wake: { nextWakeAt($0, daemonStartedAt: daemonStartedAt) })
    }
}
