import Foundation

/// One change in a user's permission history: a run of identical observations.
///
/// `observedAt` is the first observation of the run. Identical reports add no entry, but
/// their times are kept (the newest `keptObservations`): a late report that lands inside the
/// run splits it, and the part after it must start at the first observation after the late
/// one, exactly as the fold of every report would have it.
public struct HistoryEntry: Sendable, Equatable {
    /// Observation times kept per run besides the first. Late reports arrive minutes or hours
    /// late, so the newest few suffice; older ones are dropped to bound the file.
    public static let keptObservations = 16

    public var observedAt: Date
    /// Later observations of the same permissions, ascending, all after `observedAt`.
    public private(set) var laterObservations: [Date]
    public var receivedAt: Date
    public var permissions: Permissions

    public init(observedAt: Date, laterObservations: [Date] = [], receivedAt: Date, permissions: Permissions) {
        self.observedAt = observedAt
        self.laterObservations = []
        self.receivedAt = receivedAt
        self.permissions = permissions
        add(laterObservations)
    }

    /// A run known only by its first and newest observations.
    public init(observedAt: Date, lastObservedAt: Date, receivedAt: Date, permissions: Permissions) {
        self.init(
            observedAt: observedAt, laterObservations: [lastObservedAt], receivedAt: receivedAt,
            permissions: permissions)
    }

    /// The newest observation of the run.
    public var lastObservedAt: Date { laterObservations.last ?? observedAt }

    /// Records further observations of this run (times at or before its start are ignored).
    mutating func add(_ times: some Sequence<Date>) {
        var merged = laterObservations
        for time in times where time > observedAt && !merged.contains(time) {
            merged.append(time)
        }
        merged.sort()
        if merged.count > Self.keptObservations {
            merged.removeFirst(merged.count - Self.keptObservations)
        }
        laterObservations = merged
    }

    /// Splits the run at `time` (strictly inside it): this part keeps the observations before
    /// it; the returned part starts at the first observation after it.
    mutating func split(at time: Date) -> HistoryEntry? {
        guard let firstAfter = laterObservations.firstIndex(where: { $0 > time }) else { return nil }
        let tail = HistoryEntry(
            observedAt: laterObservations[firstAfter], laterObservations: Array(laterObservations[(firstAfter + 1)...]),
            receivedAt: receivedAt, permissions: permissions)
        laterObservations = laterObservations.filter { $0 < time }
        return tail
    }

    public var errors: [PermissionErrorType] { permissions.errors }

    /// The entry as the user file keeps it: `{"observedAt",…,"receivedAt","permissions":{…},
    /// "errors":[…]}` with the run's later observation times. (The history API's shape, without
    /// them, is `RemindAPI.UserHistory`.)
    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.member("observedAt", RFC3339.format(observedAt))
        if laterObservations.count > 1 {
            writer.member("observations", strings: laterObservations.dropLast().map(RFC3339.format))
        }
        if lastObservedAt != observedAt {
            writer.member("lastObservedAt", RFC3339.format(lastObservedAt))
        }
        writer.member("receivedAt", RFC3339.format(receivedAt))
        writer.key("permissions")
        UserRecord.write(permissions, observedAt: nil, to: &writer)
        writer.member("errors", strings: errors.map(\.rawValue))
        writer.endObject()
    }
}

/// A reminder that went out.
public struct Delivery: Sendable, Equatable {
    public var id: String
    public var sequence: Int
    /// When it was due (after jitter and quiet hours).
    public var dueAt: Date
    /// When the policy sent it: the next one of a recurring series is due a delay after this.
    public var deliveredAt: Date
    /// Held out (the episode is in the experiment's holdout, docs/outcomes.md): recorded at its due
    /// time so the series goes on exactly as if sent, but nothing was emitted.
    public var heldOut: Bool
    /// When the app reported the user opened it (`reminderOpened`); nil until then.
    public var openedAt: Date?
    /// The channel it took (docs/fallback.md): `push` unless it went to the sinks of role
    /// `fallback`, for `because`. Deliveries stored before channels existed read as `push`.
    public var channel: ReminderChannel
    /// Why it took the fallback channel; nil on `push`.
    public var because: FallbackReason?

    public init(
        id: String, sequence: Int, dueAt: Date, deliveredAt: Date, heldOut: Bool = false, openedAt: Date? = nil,
        channel: ReminderChannel = .push, because: FallbackReason? = nil
    ) {
        self.openedAt = openedAt
        self.channel = channel
        self.because = because
        self.id = id
        self.sequence = sequence
        self.dueAt = dueAt
        self.deliveredAt = deliveredAt
        self.heldOut = heldOut
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
    /// The experiment group it was assigned when it opened (docs/outcomes.md): `default`, a variant's
    /// name, or `holdout`. Kept with the episode, so a configuration change never moves it.
    public var group: String
    /// The reason it opened with; nil for episodes stored before reasons were kept.
    public var reason: PermissionErrorType?
    /// Its send-time arm (`notification.sendTime`), drawn when it opened; nil while send time
    /// is `due`.
    public var sendTime: SendTime.Arm?
    /// What the state before it was (docs/outcomes.md "Always kept"); nil for episodes stored
    /// before openings were kept.
    public var opening: Opening?
    /// The asks given in it (docs/in-app.md), oldest first.
    public var asks: [Ask]

    /// How an episode began.
    public enum Opening: String, Sendable, CaseIterable {
        /// The user's first report lacked Always access.
        case first
        /// The report before the opening one had Always access: the user lost it (iOS's "keep
        /// Always?" prompt, a provisional Always never confirmed).
        case downgrade
        /// Any other: the user had been without it before, for a reason that did not remind.
        case again
    }

    public init(
        startedAt: Date, closedAt: Date? = nil, deliveries: [Delivery] = [], suppressedCount: Int = 0,
        isSuppressed: Bool = false, group: String = Experiment.defaultGroup, reason: PermissionErrorType? = nil,
        sendTime: SendTime.Arm? = nil, opening: Opening? = nil, asks: [Ask] = []
    ) {
        self.opening = opening
        self.asks = asks
        self.sendTime = sendTime
        self.group = group
        self.reason = reason
        self.startedAt = startedAt
        self.closedAt = closedAt
        self.deliveries = deliveries
        self.suppressedCount = suppressedCount
        self.isSuppressed = isSuppressed
    }

    public var isOpen: Bool { closedAt == nil }

    /// Reminders that reached the sinks; held-out ones are not among them.
    public var sent: [Delivery] { deliveries.filter { !$0.heldOut } }
    public var heldOutCount: Int { deliveries.count { $0.heldOut } }

    /// Reminders the user opened (`reminderOpened`).
    public var openedCount: Int { deliveries.count { $0.openedAt != nil } }
    /// Asks the app reported shown, and accepted.
    public var asksShown: Int { asks.count { $0.shownAt != nil } }
    public var asksAccepted: Int { asks.count { $0.acceptedAt != nil } }
}
