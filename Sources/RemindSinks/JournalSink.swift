import Logging
import RemindCore

/// Sends each event as a structured log entry: with the daemon's logging bootstrapped to
/// journald, a journald entry with `MESSAGE_ID`, `REMINDD_USER_ID`, `REMINDD_EVENT_ID` and
/// the event's JSON in `REMINDD_EVENT`; on stderr when journald does not answer.
public struct JournalSink: EventSink {
    public let name: String
    public var type: String { "journal" }
    private let logger: Logger
    private let messageIDs: [SinkEvent.Kind: String]

    /// `messageIDs` gives the journald MESSAGE_ID of each event kind (see the catalog).
    public init(name: String = "journal", logger: Logger, messageIDs: [SinkEvent.Kind: String]) {
        self.name = name
        self.logger = logger
        self.messageIDs = messageIDs
    }

    public func deliver(_ event: OutboxEvent) async throws(SinkError) {
        var metadata: Logger.Metadata = [
            "REMINDD_EVENT_ID": .string(event.id),
            "REMINDD_USER_ID": .string(event.userID.rawValue),
            "REMINDD_EVENT_TYPE": .string(event.kind.rawValue),
            "REMINDD_SINK": .string(name),
            "REMINDD_EVENT": .string(event.json),
        ]
        if let messageID = messageIDs[event.kind] { metadata["MESSAGE_ID"] = .string(messageID) }
        logger.notice("\(event.kind.rawValue) \(event.id) for \(event.userID)", metadata: metadata)
    }
}
