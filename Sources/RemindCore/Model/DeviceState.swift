import Foundation

/// What a user's reports say about their device that is not a permission: the push address,
/// the locale, and the permissions the app can still ask the system for (`canPrompt`). None
/// is part of the fold or of history; the newest report *received*
/// wins, whatever its `observedAt`, because a device that re-registers sends its
/// new token with the time it reports, not the time the token changed.
public struct DeviceState: Sendable, Equatable {
    /// BCP 47 tag as sent, e.g. `de-CH`.
    public var locale: String?
    public var push: PushAddress?
    /// As last reported, in declaration order; empty when never reported (or cleared).
    public var canPrompt: [PromptablePermission]

    public init(locale: String? = nil, push: PushAddress? = nil, canPrompt: [PromptablePermission] = []) {
        self.locale = locale
        self.push = push
        self.canPrompt = canPrompt
    }

    public var isEmpty: Bool { locale == nil && push == nil && canPrompt.isEmpty }

    /// Applies a report's device fields. A reported address equal to the stored one keeps
    /// its unreachability: only a different token makes a dead device reachable again.
    /// A report without `canPrompt` keeps the list; `[]` clears it.
    public mutating func apply(
        locale newLocale: String?, push update: PushUpdate, canPrompt newCanPrompt: [PromptablePermission]? = nil
    ) {
        if let newLocale { locale = newLocale }
        if let newCanPrompt { canPrompt = newCanPrompt }
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
