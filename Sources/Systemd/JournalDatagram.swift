import CSystemd

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// One journald entry sent as a single datagram that never waits for journald.
///
/// `sd_journal_sendv` blocks its caller while journald is not reading (stopped, rate-limiting, a slow disk), so the
/// log handler only calls it from its own writer thread (``JournalWriter``). A caller that must not stall, such as
/// the journal sink on the cooperative pool, sends through here instead and hears at once that journald did not
/// take the entry, as `-EAGAIN`, which it can retry later.
public enum JournalDatagram {
    /// Sends one entry without waiting; returns 0 when journald's socket took it, else a negative errno:
    /// `-EAGAIN` when journald's queue is full, `-ENOENT` or `-ECONNREFUSED` when no journald listens, `-EMSGSIZE`
    /// when the entry does not fit one datagram.
    public static func send(_ fields: [(name: String, value: String)]) -> Int32 {
        let entry = Self.encode(fields)
        return entry.withUnsafeBytes { Int32(csystemd_journal_send_nonblocking($0.baseAddress, $0.count)) }
    }

    /// journald's native protocol: `NAME=value\n` per field, and for a value with a newline (which would end the
    /// field early) `NAME\n`, its length as 64-bit little endian, the value and `\n`, as libsystemd does.
    static func encode(_ fields: [(name: String, value: String)]) -> [UInt8] {
        var entry: [UInt8] = []
        for field in fields {
            let value = Array(field.value.utf8)
            entry.append(contentsOf: field.name.utf8)
            if value.contains(UInt8(ascii: "\n")) {
                entry.append(UInt8(ascii: "\n"))
                withUnsafeBytes(of: UInt64(value.count).littleEndian) { entry.append(contentsOf: $0) }
            } else {
                entry.append(UInt8(ascii: "="))
            }
            entry.append(contentsOf: value)
            entry.append(UInt8(ascii: "\n"))
        }
        return entry
    }
}
