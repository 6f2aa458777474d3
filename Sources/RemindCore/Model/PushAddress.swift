import Foundation

/// The push service a device token belongs to (docs/push.md).
public enum PushService: String, Sendable, CaseIterable {
    case apns
    case fcm
}

/// Which APNs host a token was issued for: a development build's token is refused by the
/// production host and the other way round.
public enum APNsEnvironment: String, Sendable, CaseIterable {
    case production
    case development
}

/// A device's push address, as the last report set it, and whether the push service still
/// accepts it.
///
/// The token is a secret of the user's device: it is stored (the sinks need it) but shown
/// only as `tokenSuffix`, in no answer and no log line.
public struct PushAddress: Sendable, Equatable {
    public static let apnsTokenLength = 64...200
    public static let fcmTokenLength = 1...4096
    /// How much of the token the user status shows: enough to tell two devices apart.
    public static let suffixLength = 8

    public var service: PushService
    /// APNs tokens are stored lowercase (they arrive in either case).
    public var token: String
    /// APNs only; nil for FCM.
    public var environment: APNsEnvironment?
    /// Set when the service called the token dead; cleared only by a different token.
    public var unreachable: Unreachable?

    public struct Unreachable: Sendable, Equatable {
        /// The service's reason as given (`Unregistered`, `BadDeviceToken`, `UNREGISTERED`, …).
        public var reason: String
        public var since: Date

        public init(reason: String, since: Date) {
            self.reason = reason
            self.since = since.millisecondPrecision
        }
    }

    public init(
        service: PushService, token: String, environment: APNsEnvironment? = nil, unreachable: Unreachable? = nil
    ) {
        self.service = service
        self.token = service == .apns ? token.lowercased() : token
        self.environment = service == .apns ? (environment ?? .production) : nil
        self.unreachable = unreachable
    }

    public var tokenSuffix: String { String(token.suffix(Self.suffixLength)) }
    public var isReachable: Bool { unreachable == nil }

    /// The same device address (service, token and environment), reachable or not.
    public func isSameAddress(as other: PushAddress) -> Bool {
        service == other.service && token == other.token && environment == other.environment
    }

    /// Reads the report's `push` object; errors name `push.<field>` and never quote the token.
    public init(reportObject object: JSONObject) throws(ValidationError) {
        var reader = JSONObjectReader(object, path: "push")
        guard let service = try reader.enumeration("service", PushService.self) else {
            throw ValidationError(field: "push.service", reason: "is required")
        }
        guard let token = try reader.string("token") else {
            throw ValidationError(field: "push.token", reason: "is required")
        }
        let environment = try reader.enumeration("environment", APNsEnvironment.self)
        switch service {
        case .apns:
            guard Self.apnsTokenLength.contains(token.utf8.count), token.utf8.allSatisfy(\.isHexDigit) else {
                throw ValidationError(
                    field: "push.token",
                    reason: "must be an APNs device token: \(Self.apnsTokenLength.lowerBound)–"
                        + "\(Self.apnsTokenLength.upperBound) hexadecimal characters")
            }
        case .fcm:
            guard environment == nil else {
                throw ValidationError(field: "push.environment", reason: "applies to APNs tokens only")
            }
            guard Self.fcmTokenLength.contains(token.utf8.count),
                token.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F })
            else {
                throw ValidationError(
                    field: "push.token",
                    reason: "must be an FCM registration token: 1–\(Self.fcmTokenLength.upperBound) printable "
                        + "ASCII characters without spaces")
            }
        }
        self.init(service: service, token: token, environment: environment)
    }
}

extension UInt8 {
    fileprivate var isHexDigit: Bool {
        (0x30...0x39).contains(self) || (0x41...0x46).contains(self) || (0x61...0x66).contains(self)
    }
}
