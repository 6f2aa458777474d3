import CSystemd

/// The service watchdog systemd set up for this process (`WatchdogSec=`, `sd_watchdog_enabled(3)`).
///
/// A value rather than a service: the caller decides which loop pings, so that a stuck scheduler stops the pings
/// and systemd restarts the daemon, instead of a separate timer that would keep pinging a hung process.
public struct Watchdog: Sendable, Hashable {
    /// `WATCHDOG_USEC`: how long systemd waits for `WATCHDOG=1` before it acts; nil when the watchdog is off.
    public let timeout: Duration?

    /// How often to send `WATCHDOG=1`: half the timeout, as `sd_watchdog_enabled(3)` recommends, so one late ping
    /// is not fatal. Nil when the watchdog is off.
    public var interval: Duration? {
        self.timeout.map { $0 / 2 }
    }

    public init(timeout: Duration?) {
        self.timeout = timeout
    }

    /// Reads `WATCHDOG_USEC` and `WATCHDOG_PID` without unsetting them, so it can be called again.
    ///
    /// The watchdog is off when `WATCHDOG_USEC` is unset, or when `WATCHDOG_PID` names another process (a child
    /// that inherited the environment must not ping on its parent's behalf).
    public static func fromEnvironment() throws(SystemdError) -> Watchdog {
        var usec: UInt64 = 0
        let result = sd_watchdog_enabled(0, &usec)
        if result < 0 {
            throw .invalidWatchdog(errno: -result)
        }
        return Watchdog(timeout: result > 0 ? .microseconds(usec) : nil)
    }
}
