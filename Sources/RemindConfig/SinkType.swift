/// The `type` of a sink, as written in the configuration.
public enum SinkType: String, Sendable, Equatable, CaseIterable {
    case journal
    case file
    case exec
    case webhook
}
