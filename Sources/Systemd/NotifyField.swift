/// One `NAME=value` assignment of the `sd_notify` protocol (see `sd_notify(3)`).
///
/// An enum rather than a dictionary so that the order in the datagram is the caller's order, the names cannot be
/// misspelt, and values that need formatting (microseconds, booleans) are formatted in one place.
public enum NotifyField: Sendable, Hashable {
    /// `READY=1`: start-up (or a reload) is finished.
    case ready
    /// `RELOADING=1`: a reload started; send with ``monotonicMicroseconds(_:)`` for `Type=notify-reload`.
    case reloading
    /// `STOPPING=1`: shutdown started.
    case stopping
    /// `STATUS=…`: a one-line status shown by `systemctl status`.
    case status(String)
    /// `ERRNO=…`: the reason of a failure, as an errno value.
    case errno(Int32)
    /// `EXIT_STATUS=…`: the exit status the service is about to exit with (systemd ≥ 254; older ones ignore it).
    case exitStatus(Int32)
    /// `MONOTONIC_USEC=…`: `CLOCK_MONOTONIC` in microseconds, which systemd requires beside `RELOADING=1`.
    case monotonicMicroseconds(UInt64)
    /// `WATCHDOG=1`: the service is alive.
    case watchdog
    /// `WATCHDOG=trigger`: ask systemd to act as if the watchdog timed out.
    case watchdogTrigger
    /// `EXTEND_TIMEOUT_USEC=…`: start-up, reload or stop needs this much more time.
    case extendTimeout(Duration)
    /// Any other assignment, for protocol fields this enum does not know yet.
    case custom(name: String, value: String)

    /// The `NAME=value` line sent in the datagram.
    public var assignment: String {
        switch self {
        case .ready: return "READY=1"
        case .reloading: return "RELOADING=1"
        case .stopping: return "STOPPING=1"
        case .status(let text): return "STATUS=\(Self.singleLine(text))"
        case .errno(let value): return "ERRNO=\(value)"
        case .exitStatus(let value): return "EXIT_STATUS=\(value)"
        case .monotonicMicroseconds(let value): return "MONOTONIC_USEC=\(value)"
        case .watchdog: return "WATCHDOG=1"
        case .watchdogTrigger: return "WATCHDOG=trigger"
        case .extendTimeout(let duration): return "EXTEND_TIMEOUT_USEC=\(duration.wholeMicroseconds)"
        case .custom(let name, let value): return "\(name)=\(Self.singleLine(value))"
        }
    }

    /// Newlines separate assignments in the protocol, so a newline inside a value would start a bogus one.
    private static func singleLine(_ text: String) -> String {
        String(text.map { $0.isNewline ? " " : $0 })
    }
}

extension Duration {
    /// Whole microseconds, clamped at zero: systemd's `*_USEC` fields are unsigned.
    var wholeMicroseconds: UInt64 {
        guard self > .zero else { return 0 }
        let (seconds, attoseconds) = self.components
        return UInt64(seconds) * 1_000_000 + UInt64(attoseconds / 1_000_000_000_000)
    }
}
