/// When a due reminder goes out (docs/configuration.md `notification.sendTime`): at its due
/// time, or in the hour of day the user uses their phone most.
public enum SendTime: Sendable, Equatable {
    /// At the due time (and quiet hours).
    case due
    /// In the user's most active hour (`ActivityHistogram`), at most `maxDelaySeconds` later.
    case active(Active)

    public struct Active: Sendable, Equatable {
        /// The longest a reminder waits for the active hour; a later one goes at its due time.
        public var maxDelaySeconds: Int64
        /// Reports counted before the user's own hour is trusted; below it the hour most users
        /// are most active in is used.
        public var minReports: Int
        /// Users (stable hash, salt `sendtime`) whose reminders go at the due time, so the
        /// effect of the active hour can be measured against them.
        public var holdoutPercent: Double

        public init(maxDelaySeconds: Int64 = 86_400, minReports: Int = 5, holdoutPercent: Double = 0) {
            self.maxDelaySeconds = maxDelaySeconds
            self.minReports = minReports
            self.holdoutPercent = holdoutPercent
        }
    }

    /// The two arms outcome lines and `/v1/stats` name.
    public enum Arm: String, Sendable, CaseIterable {
        case due
        case active
    }

    public var active: Active? {
        if case .active(let settings) = self { return settings }
        return nil
    }

    /// The arm a user's reminders are in: `due` when send time is off or the user is in its
    /// holdout, else `active`.
    public func arm(for userID: UserID) -> Arm {
        guard let active else { return .due }
        return Self.isHeldOut(userID.rawValue, percent: active.holdoutPercent) ? .due : .active
    }

    static func isHeldOut(_ key: String, percent: Double) -> Bool {
        percent > 0
            && StableHash.offset(for: key, salt: "sendtime", window: 10_000) < Int64((percent * 100).rounded())
    }
}
