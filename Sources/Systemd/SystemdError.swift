#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// An error from reading what systemd handed to this process.
///
/// A struct around a private code so that new cases can be added without breaking callers that switch over it.
public struct SystemdError: Error, Sendable, Hashable, CustomStringConvertible {
    private enum Code: Hashable {
        case invalidListenFDs
        case invalidWatchdog
    }

    private let code: Code

    /// The positive `errno` value libsystemd returned (negated).
    public let errno: Int32

    private init(_ code: Code, errno: Int32) {
        self.code = code
        self.errno = errno
    }

    /// `LISTEN_PID`, `LISTEN_FDS` or `LISTEN_FDNAMES` could not be parsed, or the passed fds are not valid.
    public static func invalidListenFDs(errno: Int32) -> SystemdError {
        SystemdError(.invalidListenFDs, errno: errno)
    }

    /// `WATCHDOG_USEC` or `WATCHDOG_PID` could not be parsed.
    public static func invalidWatchdog(errno: Int32) -> SystemdError {
        SystemdError(.invalidWatchdog, errno: errno)
    }

    public var description: String {
        let reason = String(cString: strerror(self.errno))
        switch self.code {
        case .invalidListenFDs:
            return "invalid socket activation environment (LISTEN_FDS): \(reason)"
        case .invalidWatchdog:
            return "invalid watchdog environment (WATCHDOG_USEC): \(reason)"
        }
    }
}
