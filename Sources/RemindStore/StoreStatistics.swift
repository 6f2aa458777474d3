import Foundation
import RemindCore

/// Counts for `GET /v1/status`, the metrics and `STATUS=`, kept current by the store.
public struct StoreStatistics: Sendable, Equatable {
    public var users = 0
    public var openEpisodes = 0
    public var pendingReminders = 0
    public var nextReminderAt: Date?
    /// Users per combination of service conditions; `ServiceDefinition.counts` turns them
    /// into users per service and state.
    public var usersByConditions = ConditionCounts()
    /// Suppressions recorded since start.
    public var suppressed = 0
    /// Files now in `quarantine/`.
    public var quarantined = 0
    /// Events waiting, per sink.
    public var outboxPending: [String: Int] = [:]
    /// Records changed in memory and not yet written to their final place.
    public var dirtyRecords = 0
    /// Events every sink is done with, since start.
    public var eventsDelivered = 0
    /// Events a sink gave up on, waiting for a replay.
    public var deadLetters = 0
    /// Bytes appended to the write-ahead log since start (the files backend's; 0 elsewhere).
    public var logBytes = 0

    public init() {}

    /// Adds the counts of a store holding other users (a part of the same store): sums, and
    /// the earlier next reminder.
    public mutating func add(_ other: StoreStatistics) {
        users += other.users
        openEpisodes += other.openEpisodes
        pendingReminders += other.pendingReminders
        nextReminderAt = [nextReminderAt, other.nextReminderAt].compactMap { $0 }.min()
        usersByConditions.add(other.usersByConditions)
        suppressed += other.suppressed
        quarantined += other.quarantined
        outboxPending.merge(other.outboxPending, uniquingKeysWith: +)
        dirtyRecords += other.dirtyRecords
        eventsDelivered += other.eventsDelivered
        deadLetters += other.deadLetters
        logBytes += other.logBytes
    }
}
