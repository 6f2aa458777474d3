/// A condition a service needs (docs/configuration.md), after MOVE's services that stop in a
/// `permissionMissing` state when a permission they require is missing.
///
/// Declared in the order answers list them.
public enum ServiceCondition: String, Sendable, CaseIterable {
    /// Location Services (system-wide) on.
    case locationServices
    /// Any location access (`allowOnce`, `whileInUse`, `always`), with Location Services on.
    case location
    /// Always access.
    case always
    /// Accuracy `full`, whatever the authorization.
    case precise
    /// Motion & Fitness (Activity Recognition) `authorized`.
    case motion
    /// Notifications `provisional` or `authorized`: deliverable, and reported.
    case notifications

    /// What the user does to make the condition hold: what `remindctl user` and `explain`
    /// print beside a broken service, for iOS and Android alike.
    public var fix: String {
        switch self {
        case .locationServices:
            "turn on Location Services (iOS: Settings › Privacy › Location Services; Android: Location)"
        case .location: "allow location access for the app"
        case .always: "set the app's location access to Always (Android: Allow all the time)"
        case .precise: "turn on Precise Location (Android: precise instead of approximate)"
        case .motion: "allow Motion & Fitness (Android: Physical activity)"
        case .notifications: "allow notifications for the app"
        }
    }
}

/// The conditions that hold for one user, one bit each: what the per-user table keeps, and
/// what users are counted by, so that any `services` configuration can be answered from
/// 64 counters instead of a scan of every user.
public struct ServiceConditions: Sendable, Hashable {
    public var rawValue: UInt8

    public init(rawValue: UInt8) {
        self.rawValue = rawValue
    }

    public init(_ conditions: some Sequence<ServiceCondition>) {
        self.init(rawValue: 0)
        for condition in conditions { rawValue |= Self.bit(condition) }
    }

    /// How many distinct values there are: one counter each.
    public static let combinations = 1 << ServiceCondition.allCases.count

    private static func bit(_ condition: ServiceCondition) -> UInt8 {
        1 << UInt8(ServiceCondition.allCases.firstIndex(of: condition)!)
    }

    public func contains(_ condition: ServiceCondition) -> Bool { rawValue & Self.bit(condition) != 0 }

    public var members: [ServiceCondition] { ServiceCondition.allCases.filter(contains) }
}

extension Permissions {
    /// The service conditions this state satisfies. A permission never reported (motion or
    /// notifications `unknown`) does not hold.
    public var conditions: ServiceConditions {
        var holding: [ServiceCondition] = []
        if locationServices { holding.append(.locationServices) }
        if locationServices && [.allowOnce, .whileInUse, .always].contains(location) { holding.append(.location) }
        if hasAlwaysAccess { holding.append(.always) }
        if accuracy == .full { holding.append(.precise) }
        if motion == .authorized { holding.append(.motion) }
        if notifications == .provisional || notifications == .authorized { holding.append(.notifications) }
        return ServiceConditions(holding)
    }
}
