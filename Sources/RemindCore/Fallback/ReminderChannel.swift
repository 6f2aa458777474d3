import Foundation

/// Which channel a due reminder takes: the push sinks, or the sinks of role
/// `fallback` when no push sink can deliver it.
public enum ReminderChannel: String, Sendable, CaseIterable {
    case push
    case fallback
}

/// Why a reminder went to the fallback sinks, the first of these that holds, in this order.
public enum FallbackReason: String, Sendable, CaseIterable {
    /// No push address for any configured push sink (or no push sink configured at all).
    case noPushAddress
    /// The address's service called the token dead.
    case unreachable
    /// Notifications are not deliverable (`notDetermined` or `denied`).
    case notificationsOff
    /// The app has not reported for `fallback.silentAfterSeconds` (an Android app in
    /// hibernation gets no FCM at all).
    case silent
}

/// What the channel decision needs of the configuration: the push services the push sinks
/// serve, whether any sink has role `fallback`, and when a silent app counts as unreachable.
public struct ChannelConfiguration: Sendable, Equatable {
    public static let defaultSilentAfterSeconds: Int64 = 2_592_000

    public var pushServices: Set<PushService>
    public var hasFallback: Bool
    /// Nil: a silent app is never a reason.
    public var silentAfterSeconds: Int64?

    public init(
        pushServices: Set<PushService> = [], hasFallback: Bool = false,
        silentAfterSeconds: Int64? = defaultSilentAfterSeconds
    ) {
        self.pushServices = pushServices
        self.hasFallback = hasFallback
        self.silentAfterSeconds = silentAfterSeconds
    }

    /// The channel of a reminder due `now` for a user with this push address, notification
    /// state and last report; nil when it is suppressed (notifications off with no fallback
    /// sink: today's behaviour). Without a fallback sink every other reminder takes `push`:
    /// the sinks of role `always` get it as they always did.
    public func decide(
        push: PushAddress?, notificationsDeliverable: Bool, lastReportAt: Date, now: Date
    ) -> (channel: ReminderChannel, because: FallbackReason?)? {
        guard hasFallback else { return notificationsDeliverable ? (.push, nil) : nil }
        guard let push, pushServices.contains(push.service) else { return (.fallback, .noPushAddress) }
        if !push.isReachable { return (.fallback, .unreachable) }
        if !notificationsDeliverable { return (.fallback, .notificationsOff) }
        if let silentAfterSeconds, now.timeIntervalSince(lastReportAt) >= TimeInterval(silentAfterSeconds) {
            return (.fallback, .silent)
        }
        return (.push, nil)
    }
}
