/// The location authorization the app has, as iOS reports it.
public enum LocationAuthorization: String, Sendable, CaseIterable, Codable {
    case notDetermined, restricted, denied, allowOnce, whileInUse, always
}

/// Whether the app gets precise or approximate locations.
public enum LocationAccuracy: String, Sendable, CaseIterable, Codable {
    case full, reduced
}

/// The app's notification authorization. `unknown` is never reported by a device: it stands
/// for "no report has said", and counts as deliverable.
public enum NotificationAuthorization: String, Sendable, CaseIterable, Codable {
    case unknown, notDetermined, denied, provisional, authorized

    /// The values a report may carry.
    public static let reportable: [NotificationAuthorization] = [.notDetermined, .denied, .provisional, .authorized]

    /// Whether a reminder can reach the user. Undeliverable reminders are suppressed.
    public var isDeliverable: Bool {
        switch self {
        case .notDetermined, .denied: false
        case .unknown, .provisional, .authorized: true
        }
    }
}

/// One user's permission state: what two reports must share to be "identical".
public struct Permissions: Sendable, Hashable {
    public var location: LocationAuthorization
    public var accuracy: LocationAccuracy
    public var locationServices: Bool
    public var notifications: NotificationAuthorization
    /// The device's IANA time zone, if any report has named it.
    public var timeZone: String?
    /// Motion & Fitness (Android: Activity Recognition); `unknown` until a report says.
    public var motion: MotionAuthorization

    public init(
        location: LocationAuthorization,
        accuracy: LocationAccuracy = .full,
        locationServices: Bool = true,
        notifications: NotificationAuthorization = .unknown,
        timeZone: String? = nil,
        motion: MotionAuthorization = .unknown
    ) {
        self.motion = motion
        self.location = location
        self.accuracy = accuracy
        self.locationServices = locationServices
        self.notifications = notifications
        self.timeZone = timeZone
    }

    /// Always access: the only state in which background trips are recorded.
    public var hasAlwaysAccess: Bool {
        location == .always && locationServices
    }

    /// The errors of this state, in precedence order.
    public var errors: [PermissionErrorType] {
        var errors: [PermissionErrorType] = []
        if !locationServices { errors.append(.locationServicesTurnedOff) }
        if location != .always { errors.append(.locationNotAuthorizedAlways) }
        if accuracy == .reduced { errors.append(.preciseLocationNotEnabled) }
        if !notifications.isDeliverable { errors.append(.notificationsTurnedOff) }
        if motion.isMissing { errors.append(.motionNotAuthorized) }
        return errors
    }

    /// Why a reminder is needed with the default `remindFor`: the first of the two errors that
    /// deny Always access.
    public var reminderReason: PermissionErrorType? {
        reminderReason(remindFor: .defaultRemindFor)
    }

    /// Why a reminder is needed: the first error present that `remindFor` lists, nil for none.
    public func reminderReason(remindFor: PermissionErrorSet) -> PermissionErrorType? {
        PermissionErrorSet(errors).intersection(remindFor).first
    }
}

/// The permission errors, declared in their precedence order.
public enum PermissionErrorType: String, Sendable, CaseIterable, Codable, Comparable {
    case locationServicesTurnedOff
    case locationNotAuthorizedAlways
    case preciseLocationNotEnabled
    case notificationsTurnedOff
    case motionNotAuthorized

    public static func < (lhs: Self, rhs: Self) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}
