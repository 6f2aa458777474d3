import Foundation

/// One change in a user's permission history: a run of identical observations.
///
/// `observedAt` is the first observation of the run. `lastObservedAt` is the newest one
/// with the same permissions: identical reports add no entry, but a late report that lands
/// between them must still be followed by "the newer observation", which this keeps.
public struct HistoryEntry: Sendable, Equatable {
    public var observedAt: Date
    public var lastObservedAt: Date
    public var receivedAt: Date
    public var permissions: Permissions

    public init(observedAt: Date, lastObservedAt: Date? = nil, receivedAt: Date, permissions: Permissions) {
        self.observedAt = observedAt
        self.lastObservedAt = max(lastObservedAt ?? observedAt, observedAt)
        self.receivedAt = receivedAt
        self.permissions = permissions
    }

    public var errors: [PermissionErrorType] { permissions.errors }
}

/// A reminder that went out.
public struct Delivery: Sendable, Equatable {
    public var id: String
    public var sequence: Int
    /// When it was due (after jitter and quiet hours).
    public var dueAt: Date
    /// When the policy sent it: the next one of a recurring series is due a delay after this.
    public var deliveredAt: Date

    public init(id: String, sequence: Int, dueAt: Date, deliveredAt: Date) {
        self.id = id
        self.sequence = sequence
        self.dueAt = dueAt
        self.deliveredAt = deliveredAt
    }
}

/// A stretch of time without Always access.
public struct Episode: Sendable, Equatable {
    public var startedAt: Date
    /// The observation that restored Always access; nil while open.
    public var closedAt: Date?
    public var deliveries: [Delivery]
    /// Reminders that came due while notifications were off, each counted once.
    public var suppressedCount: Int
    /// The reminder now due was suppressed and waits for notifications to come back.
    public var isSuppressed: Bool

    public init(
        startedAt: Date, closedAt: Date? = nil, deliveries: [Delivery] = [], suppressedCount: Int = 0,
        isSuppressed: Bool = false
    ) {
        self.startedAt = startedAt
        self.closedAt = closedAt
        self.deliveries = deliveries
        self.suppressedCount = suppressedCount
        self.isSuppressed = isSuppressed
    }

    public var isOpen: Bool { closedAt == nil }
}
