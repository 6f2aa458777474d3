import RemindCore
import Systemd

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Sends each event as a structured journald entry, with `MESSAGE_ID`, `REMINDD_USER_ID`,
/// `REMINDD_EVENT_ID`, `REMINDD_SINK` and the event's JSON in `REMINDD_EVENT`.
///
/// It sends without waiting (``JournalDatagram``): while journald is not reading (stopped,
/// rate-limiting, a slow disk) an attempt fails at once as retryable, and the dispatcher's
/// backoff, outbox and dead letters apply as to any other sink, instead of the attempt
/// blocking a thread of the cooperative pool. When no journald listens at all (the socket does
/// not exist, as when run by hand in a container), the event goes to standard error instead
/// and counts as delivered.
public struct JournalSink: EventSink {
    public let name: String
    public var type: String { "journal" }
    /// `SYSLOG_IDENTIFIER`: what `journalctl -t remindd` matches.
    public let identifier: String
    private let messageIDs: [SinkEvent.Kind: String]
    private let send: @Sendable ([(name: String, value: String)]) -> Int32
    private let writeStandardError: @Sendable (String) -> Void

    /// `messageIDs` gives the journald MESSAGE_ID of each event kind (see the catalog); `send`
    /// returns 0 or a negative errno and must not block.
    public init(
        name: String = "journal", identifier: String = "remindd", messageIDs: [SinkEvent.Kind: String],
        send: @escaping @Sendable ([(name: String, value: String)]) -> Int32 = JournalDatagram.send,
        writeStandardError: @escaping @Sendable (String) -> Void = JournalWriter.writeToStandardError
    ) {
        self.name = name
        self.identifier = identifier
        self.messageIDs = messageIDs
        self.send = send
        self.writeStandardError = writeStandardError
    }

    public func deliver(_ event: OutboxEvent) async throws(SinkError) -> SinkOutcome {
        let message = "\(event.kind.rawValue) \(event.id) for \(event.userID)"
        var fields: [(name: String, value: String)] = [
            ("MESSAGE", message),
            // notice: an event is worth seeing, but is not a problem.
            ("PRIORITY", "5"),
            ("SYSLOG_IDENTIFIER", identifier),
        ]
        if let messageID = messageIDs[event.kind] { fields.append(("MESSAGE_ID", messageID)) }
        fields += [
            ("REMINDD_EVENT_ID", event.id),
            ("REMINDD_USER_ID", event.userID.rawValue),
            ("REMINDD_EVENT_TYPE", event.kind.rawValue),
            ("REMINDD_SINK", name),
            ("REMINDD_EVENT", event.json),
        ]
        let error = -send(fields)
        switch error {
        case 0:
            return .delivered
        case ENOENT, ECONNREFUSED:
            writeStandardError("notice \(identifier) sink \(name): \(message): \(event.json)\n")
            return .delivered
        case EAGAIN:
            throw SinkError("journald is not reading: its queue is full")
        case EMSGSIZE:
            throw SinkError("the event does not fit one journald datagram", retryable: false)
        default:
            throw SinkError("journald refused the entry: \(String(cString: strerror(error)))")
        }
    }
}
