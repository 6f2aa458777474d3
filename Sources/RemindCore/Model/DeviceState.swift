import Foundation

/// What a user's reports say about their device that is not a permission: the push address
/// and the locale. Neither is part of the fold or of history; the newest report *received*
/// wins, whatever its `observedAt`, because a device that re-registers sends its
/// new token with the time it reports, not the time the token changed.
public struct DeviceState: Sendable, Equatable {
    /// BCP 47 tag as sent, e.g. `de-CH`.
    public var locale: String?
    public var push: PushAddress?

    public init(locale: String? = nil, push: PushAddress? = nil) {
        self.locale = locale
        self.push = push
    }

    public var isEmpty: Bool { locale == nil && push == nil }

    /// Applies a report's device fields. A reported address equal to the stored one keeps
    /// its unreachability: only a different token makes a dead device reachable again.
    public mutating func apply(locale newLocale: String?, push update: PushUpdate) {
        if let newLocale { locale = newLocale }
        switch update {
        case .unchanged:
            break
        case .forget:
            push = nil
        case .set(let address):
            if let push, push.isSameAddress(as: address) { break }
            push = address
        }
    }
}

/// What a report says about the push address: nothing (absent), forget it (`null`), or a new one.
public enum PushUpdate: Sendable, Equatable {
    case unchanged
    case forget
    case set(PushAddress)
}
