import RemindCore

/// The part of a sink's configuration that depends on its type.
public enum SinkKind: Sendable, Equatable {
    /// A structured journald entry per event (stderr when journald does not answer).
    case journal
    case file(FileSinkConfiguration)
    case exec(ExecSinkConfiguration)
    case webhook(WebhookSinkConfiguration)
    case apns(APNsSinkConfiguration)
    case fcm(FCMSinkConfiguration)

    public var type: SinkType {
        switch self {
        case .journal: .journal
        case .file: .file
        case .exec: .exec
        case .webhook: .webhook
        case .apns: .apns
        case .fcm: .fcm
        }
    }

    /// Reads the keys of `type` from `reader`; the caller rejects whatever is left unread.
    init(type: SinkType, reader: inout JSONObjectReader) throws(ValidationError) {
        switch type {
        case .journal: self = .journal
        case .file: self = .file(try FileSinkConfiguration(reader: &reader))
        case .exec: self = .exec(try ExecSinkConfiguration(reader: &reader))
        case .webhook: self = .webhook(try WebhookSinkConfiguration(reader: &reader))
        case .apns: self = .apns(try APNsSinkConfiguration(reader: &reader))
        case .fcm: self = .fcm(try FCMSinkConfiguration(reader: &reader))
        }
    }

    /// The keys of this type's own part, in the order the effective configuration writes them.
    var members: [(key: String, value: JSONValue)] {
        switch self {
        case .journal: []
        case .file(let file): file.members
        case .exec(let exec): exec.members
        case .webhook(let webhook): webhook.members
        case .apns(let apns): apns.members
        case .fcm(let fcm): fcm.members
        }
    }

    /// The type's own keys, for "unknown key" errors.
    static func keys(of type: SinkType) -> [String] {
        switch type {
        case .journal: []
        case .file: ["path"]
        case .exec: ["command", "timeoutSeconds"]
        case .webhook: ["url", "secretFile", "timeoutSeconds", "headers", "maxConcurrency"]
        case .apns: APNsSinkConfiguration.keys
        case .fcm: FCMSinkConfiguration.keys
        }
    }
}
