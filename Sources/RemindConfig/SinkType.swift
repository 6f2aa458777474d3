/// The `type` of a sink, as written in the configuration.
public enum SinkType: String, Sendable, Equatable, CaseIterable {
    case journal
    case file
    case exec
    case webhook
    /// Apple Push Notification service (docs/push.md).
    case apns
    /// Firebase Cloud Messaging HTTP v1 (docs/push.md).
    case fcm
}
