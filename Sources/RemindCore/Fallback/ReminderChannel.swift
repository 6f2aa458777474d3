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

/// What the channel decision and the outbox's routing need of the configuration: which sinks are
/// push sinks (and for which service), which have role `fallback`, and when a silent app counts
/// as unreachable. A sink named in neither set is a sink of role `always` that is not a push
/// sink (journal, file, exec, webhook): without any of this every sink gets every event, as
/// before fallback sinks existed.
public struct ChannelConfiguration: Sendable, Equatable {
    public static let defaultSilentAfterSeconds: Int64 = 2_592_000

    /// The push sinks of role `always`, by name, with the service each serves.
    public var pushSinks: [String: PushService]
    /// The sinks of role `fallback`, by name.
    public var fallbackSinks: Set<String>
    /// Nil: a silent app is never a reason.
    public var silentAfterSeconds: Int64?

    public init(
        pushSinks: [String: PushService] = [:], fallbackSinks: Set<String> = [],
        silentAfterSeconds: Int64? = defaultSilentAfterSeconds
    ) {
        self.pushSinks = pushSinks
        self.fallbackSinks = fallbackSinks
        self.silentAfterSeconds = silentAfterSeconds
    }

    public var hasFallback: Bool { !fallbackSinks.isEmpty }
    public var pushServices: Set<PushService> { Set(pushSinks.values) }

    /// The channel of a reminder due `now` for a user with this push address, notification
    /// state and last report; nil when it is suppressed (notifications off with no fallback
    /// sink: as before fallback sinks existed). Without a fallback sink every other reminder
    /// takes `push`: the sinks of role `always` get it as they always did.
    public func decide(
        push: PushReach?, notificationsDeliverable: Bool, lastReportAt: Date, now: Date
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

    /// Whether the sink named `sink` gets an event for `audience`.
    public func receives(_ sink: String, _ audience: SinkAudience) -> Bool {
        if fallbackSinks.contains(sink) { return audience.contains(.fallbackSinks) }
        if pushSinks[sink] != nil { return audience.contains(.pushSinks) }
        return audience.contains(.otherSinks)
    }

    /// The sinks among `sinks` (a store's, in its order) that get an event for `audience`.
    public func sinks(for audience: SinkAudience, among sinks: [String]) -> [String] {
        // Without fallback sinks every sink of a store gets every event: the common case,
        // decided without a look-up per sink.
        if fallbackSinks.isEmpty, audience.contains(.always) { return sinks }
        return sinks.filter { receives($0, audience) }
    }
}

/// Which kinds of sink an event goes to: the outbox routes it by this (`ChannelConfiguration.
/// sinks(for:among:)`). A reminder on the push channel goes to every sink of role `always`;
/// one on the fallback channel to the fallback sinks, and to the sinks of role `always` that
/// are not push sinks unless its reason is notifications off (a reminder suppressed for that
/// reaches none of them, as before); a withdraw to every sink its episode's reminders reached.
public struct SinkAudience: OptionSet, Sendable, Hashable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// The push sinks (`apns`, `fcm`) of role `always`.
    public static let pushSinks = SinkAudience(rawValue: 1)
    /// The other sinks of role `always`.
    public static let otherSinks = SinkAudience(rawValue: 2)
    /// The sinks of role `fallback`.
    public static let fallbackSinks = SinkAudience(rawValue: 4)

    /// Every sink of role `always`: heartbeats, and reminders on the push channel.
    public static let always: SinkAudience = [.pushSinks, .otherSinks]

    /// The sinks a reminder on `channel` reaches.
    public init(channel: ReminderChannel, because: FallbackReason?) {
        switch (channel, because) {
        case (.push, _): self = .always
        case (.fallback, .notificationsOff): self = .fallbackSinks
        case (.fallback, _): self = [.otherSinks, .fallbackSinks]
        }
    }

    /// The sinks a withdraw of these deliveries goes to: every one a sent reminder reached.
    public init(deliveries: some Sequence<Delivery>) {
        self = []
        for delivery in deliveries where !delivery.heldOut {
            formUnion(SinkAudience(channel: delivery.channel, because: delivery.because))
        }
    }
}
