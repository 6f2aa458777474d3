import CSystemd
import Logging

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

extension JournalLogHandler {
    /// Whether a journald is listening on ``socketPath``.
    ///
    /// Checked by connecting a datagram socket, which sends nothing: it fails with `ENOENT` when there is no socket
    /// file and with `ECONNREFUSED` when the file is left over from a journald that is gone. A probe entry through
    /// `sd_journal_sendv` would answer the same but leave noise in the journal; `sd_journal_stream_fd` would open a
    /// stream connection that journald announces. Under systemd the socket always exists, so this tells "running
    /// as a service" from "started by hand in a container without journald".
    public static var isAvailable: Bool {
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let path = Array(Self.socketPath.utf8)
        withUnsafeMutableBytes(of: &address.sun_path) { sunPath in
            sunPath.copyBytes(from: path.prefix(sunPath.count - 1))
        }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        return result == 0
    }

    /// A factory for `LoggingSystem.bootstrap`: journald handlers when journald is available, otherwise swift-log's
    /// `StreamLogHandler` on standard error, so the same binary logs sensibly under systemd and in a terminal.
    ///
    /// Availability is checked once, here, so that all loggers of the process agree; they share
    /// ``JournalWriter/shared``, which the program flushes before it exits.
    public static func factory(
        identifier: String,
        useJournal: Bool = JournalLogHandler.isAvailable
    ) -> @Sendable (String) -> any LogHandler {
        if useJournal {
            return { label in JournalLogHandler(label: label, identifier: identifier) }
        }
        return { label in StreamLogHandler.standardError(label: label) }
    }

    /// The journald field name for a swift-log metadata key, or nil when nothing of the key is left.
    ///
    /// journald silently drops fields whose names are not upper-case `A-Z`, `0-9` and `_`, start with a digit, or
    /// start with `_` (reserved for fields journald itself adds), and names are at most 64 characters. So the key
    /// is upper-cased, every other character becomes `_`, leading digits and underscores are stripped and the rest
    /// is cut at 64. Valid names such as `REMINDD_USER_ID` or `MESSAGE_ID` pass through unchanged; `userID` becomes
    /// `USERID` and `error.message` becomes `ERROR_MESSAGE`.
    public static func fieldName(forMetadataKey key: String) -> String? {
        var name = String(
            key.uppercased().unicodeScalars.map { scalar -> Character in
                switch scalar {
                case "A"..."Z", "0"..."9", "_": return Character(scalar)
                default: return "_"
                }
            }
        )
        name = String(name.drop { $0 == "_" || $0.isASCII && $0.isNumber })
        name = String(name.prefix(64))
        return name.isEmpty ? nil : name
    }

    /// Sends one entry; returns `sd_journal_sendv`'s result (0 or a negative errno). It blocks while journald is not
    /// reading: only ``JournalWriter``'s thread calls it.
    ///
    /// Each field is one `NAME=value` iovec. Values may contain newlines or any bytes: libsystemd switches such
    /// fields to journald's length-prefixed binary form, which a formatted `sd_journal_send` could not express.
    public static func send(_ fields: [(name: String, value: String)]) -> Int32 {
        var buffer: [UInt8] = []
        var ranges: [Range<Int>] = []
        for field in fields {
            let start = buffer.count
            buffer.append(contentsOf: field.name.utf8)
            buffer.append(UInt8(ascii: "="))
            buffer.append(contentsOf: field.value.utf8)
            ranges.append(start..<buffer.count)
        }
        return buffer.withUnsafeMutableBytes { bytes in
            guard let base = bytes.baseAddress else { return -EINVAL }
            let vectors = ranges.map { iovec(iov_base: base + $0.lowerBound, iov_len: $0.count) }
            return sd_journal_sendv(vectors, Int32(vectors.count))
        }
    }
}
