/// A set of permission errors, read in precedence order: what `notification.remindFor` lists
/// and what a user's schedule keeps of their current errors (one byte, so the per-user table
/// stays small).
public struct PermissionErrorSet: Sendable, Hashable {
    public var rawValue: UInt8

    public init(rawValue: UInt8) {
        self.rawValue = rawValue
    }

    public init(_ errors: some Sequence<PermissionErrorType>) {
        self.init(rawValue: 0)
        for error in errors { insert(error) }
    }

    private static func bit(_ error: PermissionErrorType) -> UInt8 {
        1 << UInt8(PermissionErrorType.allCases.firstIndex(of: error)!)
    }

    public var isEmpty: Bool { rawValue == 0 }

    public func contains(_ error: PermissionErrorType) -> Bool { rawValue & Self.bit(error) != 0 }

    public mutating func insert(_ error: PermissionErrorType) { rawValue |= Self.bit(error) }

    public func intersection(_ other: PermissionErrorSet) -> PermissionErrorSet {
        PermissionErrorSet(rawValue: rawValue & other.rawValue)
    }

    /// The members, in precedence order.
    public var members: [PermissionErrorType] { PermissionErrorType.allCases.filter(contains) }

    /// The member first in precedence order.
    public var first: PermissionErrorType? { PermissionErrorType.allCases.first(where: contains) }

    /// The default of `notification.remindFor`: errors 1–2, "without Always access".
    public static let defaultRemindFor = PermissionErrorSet([.locationServicesTurnedOff, .locationNotAuthorizedAlways])

    /// The errors a reminder may be sent for. `notificationsTurnedOff` never is: such a
    /// reminder could not reach the user.
    public static let remindable: [PermissionErrorType] = PermissionErrorType.allCases.filter {
        $0 != .notificationsTurnedOff
    }
}
