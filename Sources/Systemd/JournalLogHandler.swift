import CSystemd
import Logging

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A swift-log `LogHandler` that writes each entry to journald as structured fields (`sd_journal_sendv(3)`).
///
/// Every entry carries `MESSAGE`, `PRIORITY`, `CODE_FILE`, `CODE_LINE`, `CODE_FUNC`, `SYSLOG_IDENTIFIER`,
/// `LOGGER_LABEL` and `LOGGER_SOURCE`, and one field per metadata key, named by ``fieldName(forMetadataKey:)``, so
/// that `journalctl REMINDD_USER_ID=u-1` or `journalctl MESSAGE_ID=…` finds entries without parsing text.
/// Metadata is merged like swift-log's `StreamLogHandler`: handler metadata, then the metadata provider, then the
/// log call's own metadata, each overriding the one before; an attached error adds `ERROR_MESSAGE`/`ERROR_TYPE`.
///
/// A log call never waits for journald: it queues the entry for a ``JournalWriter``, whose own thread sends it.
/// While journald is not reading, entries beyond the writer's queue are dropped and counted, and one entry says how
/// many once journald reads again. If journald refuses an entry, the writer writes it to standard error instead,
/// so that it is not lost; a log handler has nobody to throw to.
public struct JournalLogHandler: LogHandler, Sendable {
    /// The datagram socket journald listens on; libsystemd has it compiled in.
    public static let socketPath = "/run/systemd/journal/socket"

    /// The fields this handler writes itself; a metadata key that maps to one of them is written as
    /// `METADATA_<NAME>` rather than adding a second, contradicting value (e.g. a second `PRIORITY`).
    static let ownFieldNames: Set<String> = [
        "MESSAGE", "PRIORITY", "CODE_FILE", "CODE_LINE", "CODE_FUNC", "SYSLOG_IDENTIFIER", "LOGGER_LABEL",
        "LOGGER_SOURCE",
    ]

    public let label: String
    /// `SYSLOG_IDENTIFIER`, e.g. "remindd": what `journalctl -t remindd` matches.
    public let identifier: String
    public var logLevel: Logger.Level = .info
    public var metadata: Logger.Metadata = [:]
    public var metadataProvider: Logger.MetadataProvider?
    /// Sends the entries, on a thread of its own.
    public let writer: JournalWriter

    public init(
        label: String,
        identifier: String,
        metadataProvider: Logger.MetadataProvider? = LoggingSystem.metadataProvider,
        writer: JournalWriter = .shared
    ) {
        self.label = label
        self.identifier = identifier
        self.metadataProvider = metadataProvider
        self.writer = writer
    }

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { self.metadata[key] }
        set { self.metadata[key] = newValue }
    }

    public func log(event: LogEvent) {
        writer.enqueue(.init(fields: self.fields(for: event), summary: "\(event.level) \(label): \(event.message)"))
    }

    /// The `(name, value)` pairs of one entry, in the order they are sent.
    func fields(for event: LogEvent) -> [(name: String, value: String)] {
        var fields: [(name: String, value: String)] = [
            ("MESSAGE", "\(event.message)"),
            ("PRIORITY", String(Self.priority(for: event.level))),
            ("CODE_FILE", event.file),
            ("CODE_LINE", String(event.line)),
            ("CODE_FUNC", event.function),
            ("SYSLOG_IDENTIFIER", self.identifier),
            ("LOGGER_LABEL", self.label),
            ("LOGGER_SOURCE", event.source),
        ]
        // Sorted so that the entry's field order does not depend on dictionary order.
        for (key, value) in self.effectiveMetadata(for: event).sorted(by: { $0.key < $1.key }) {
            guard let name = Self.fieldName(forMetadataKey: key) else { continue }
            fields.append((Self.ownFieldNames.contains(name) ? "METADATA_\(name)" : name, "\(value)"))
        }
        return fields
    }

    /// The syslog priority journald stores in `PRIORITY` (what `journalctl -p` filters on).
    ///
    /// swift-log has two levels below info where syslog has one, so trace and debug both map to debug (7).
    public static func priority(for level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: return 7
        case .info: return 6
        case .notice: return 5
        case .warning: return 4
        case .error: return 3
        case .critical: return 2
        }
    }

    private func effectiveMetadata(for event: LogEvent) -> Logger.Metadata {
        var metadata = self.metadata
        if let provided = self.metadataProvider?.get() {
            metadata.merge(provided) { _, provided in provided }
        }
        if let explicit = event.metadata {
            metadata.merge(explicit) { _, explicit in explicit }
        }
        if let error = event.error {
            metadata["error.message"] = "\(error)"
            metadata["error.type"] = "\(String(reflecting: type(of: error)))"
        }
        return metadata
    }
}
