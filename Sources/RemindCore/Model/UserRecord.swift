import Foundation

/// Everything remindd knows about one user: the contents of their JSON file.
public struct UserRecord: Sendable, Equatable {
    public static let schemaVersion = 1

    public var userID: UserID
    /// How many changes of this record were logged (`FileStateStore`): a logged change names
    /// the revision it made, so replay applies it only to the revision before and skips it
    /// where the file already holds it. 0 for a record never logged (other backends).
    public var revision = 0
    /// Changes, newest `observedAt` first; never empty once a report was stored.
    public var history: [HistoryEntry]
    /// Episodes, newest first; only the first can be open.
    public var episodes: [Episode]
    public var reportCount: Int
    /// When the last report was received (by the daemon's clock, not the device's).
    public var lastReportAt: Date
    /// The due time of the last heartbeat sent, which names it.
    public var lastHeartbeatAt: Date?
    public var platform: String?
    public var appVersion: String?
    /// The newest explicitly reported notification state and time zone, by `observedAt`.
    ///
    /// "Last known value" for a report without these fields means the newest one observed,
    /// whatever order reports arrive in; a register that keeps the maximum is the same after
    /// any permutation, which a value copied from whatever arrived before is not.
    public var knownNotifications: Known<NotificationAuthorization>?
    public var knownTimeZone: Known<String>?
    /// The newest explicitly reported motion state, by `observedAt` (as the two above).
    public var knownMotion: Known<MotionAuthorization>?
    /// The push address and locale, newest report received first (see `DeviceState`).
    public var device: DeviceState
    /// When the user reports, by hour of day (docs/configuration.md `notification.sendTime`).
    public var activity = ActivityHistogram()

    /// A reported value with the observation it came from.
    public struct Known<Value: Sendable & Equatable>: Sendable, Equatable {
        public var value: Value
        public var observedAt: Date

        public init(value: Value, observedAt: Date) {
            self.value = value
            self.observedAt = observedAt
        }
    }

    public init(
        userID: UserID, history: [HistoryEntry] = [], episodes: [Episode] = [], reportCount: Int = 0,
        lastReportAt: Date, lastHeartbeatAt: Date? = nil, platform: String? = nil, appVersion: String? = nil,
        knownNotifications: Known<NotificationAuthorization>? = nil, knownTimeZone: Known<String>? = nil,
        device: DeviceState = DeviceState(), knownMotion: Known<MotionAuthorization>? = nil
    ) {
        self.knownMotion = knownMotion
        self.device = device
        self.knownNotifications = knownNotifications
        self.knownTimeZone = knownTimeZone
        self.userID = userID
        self.history = history
        self.episodes = episodes
        self.reportCount = reportCount
        self.lastReportAt = lastReportAt
        self.lastHeartbeatAt = lastHeartbeatAt
        self.platform = platform
        self.appVersion = appVersion
    }

    /// The current permissions: those of the newest observation.
    public var permissions: Permissions? { history.first?.permissions }

    /// When the current permissions were last observed.
    public var observedAt: Date? { history.first?.lastObservedAt }

    public var openEpisode: Episode? {
        guard let first = episodes.first, first.isOpen else { return nil }
        return first
    }

    public var lastDelivery: Delivery? {
        for episode in episodes {
            if let last = episode.deliveries.last(where: { !$0.heldOut }) { return last }
        }
        return nil
    }
}
