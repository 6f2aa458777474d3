import Foundation
import RemindCore
import RemindTesting

/// A user's record driven through the policy the way the daemon drives it, for rule tests.
struct PolicyHarness {
    var policy: ReminderPolicy
    var record: UserRecord?
    var userID = Fixtures.userID()
    var daemonStartedAt: Date? = nil
    /// Every event the policy emitted, in order.
    var events: [SinkEvent] = []
    var suppressions = 0
    /// The simulated clock: the latest report receipt or firing so far.
    var now = Date(timeIntervalSince1970: 0)

    init(_ configuration: PolicyConfiguration = .init()) {
        policy = ReminderPolicy(configuration: configuration)
    }

    /// Applies a report received at `receivedAt` (default: its observation time).
    @discardableResult
    mutating func report(_ report: PermissionReport, receivedAt: Date? = nil) -> ReportOutcome {
        let receivedAt = receivedAt ?? report.observedAt
        now = max(now, receivedAt)
        let outcome = policy.apply(report, to: record, userID: userID, receivedAt: receivedAt)
        record = outcome.record
        events += outcome.events
        return outcome
    }

    @discardableResult
    mutating func fire(at time: Date) -> RecordFireOutcome {
        now = max(now, time)
        let outcome = policy.fire(record!, now: now, daemonStartedAt: daemonStartedAt)
        record = outcome.record
        events += outcome.events
        if outcome.suppressed { suppressions += 1 }
        return outcome
    }

    /// Fires at every wake-up up to and including `end`, as the scheduler loop would: a
    /// wake-up already in the past fires at the current time.
    mutating func run(until end: Date) {
        var guardCount = 0
        while let wake = policy.nextWakeAt(record!, daemonStartedAt: daemonStartedAt), wake <= end {
            fire(at: max(wake, now))
            guardCount += 1
            precondition(guardCount < 10_000, "the policy keeps waking at \(wake)")
        }
    }

    var reminders: [SinkEvent.Reminder] {
        events.compactMap { if case .reminder(let event) = $0 { event } else { nil } }
    }

    var withdrawals: [SinkEvent.Withdraw] {
        events.compactMap { if case .withdraw(let event) = $0 { event } else { nil } }
    }

    var heartbeats: [SinkEvent.Heartbeat] {
        events.compactMap { if case .heartbeat(let event) = $0 { event } else { nil } }
    }

    var dueAt: Date? { policy.reminderDueAt(record!) }
}

extension PolicyConfiguration {
    static func recurring(delay: Int64 = 604_800) -> PolicyConfiguration {
        PolicyConfiguration(
            notification: LocationNotificationConfiguration(
                showRecurringNotification: true, notificationTriggerDelay: delay))
    }
}
