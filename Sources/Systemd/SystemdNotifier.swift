import CSystemd

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Tells the service manager about start-up, reloads, shutdown, status and liveness (`sd_notify(3)`).
///
/// The environment is never unset (`unset_environment = 0`) because a daemon notifies many times over its life:
/// `READY=1`, then `STATUS=` updates, `WATCHDOG=1` pings, `RELOADING=1` and finally `STOPPING=1`.
/// Children do not inherit the right to notify by accident: systemd accepts messages only from the main PID unless
/// the unit sets `NotifyAccess=all`.
///
/// Outside systemd every call returns ``NotifyResult/notSupported`` and does nothing, so callers need no
/// "am I under systemd?" branches.
public struct SystemdNotifier: Sendable {
    public init() {}

    /// Sends the fields, in order, as one datagram, without ever waiting: when the service
    /// manager is not reading, the message is dropped and the result is `.failed(EAGAIN)`
    /// (`sd_notify` itself would block the calling thread until it reads).
    @discardableResult
    public func notify(_ fields: [NotifyField]) -> NotifyResult {
        let state = fields.map(\.assignment).joined(separator: "\n")
        return NotifyResult(returnValue: csystemd_notify_nonblocking(state))
    }

    /// Sends the fields, in order, as one datagram.
    @discardableResult
    public func notify(_ fields: NotifyField...) -> NotifyResult {
        self.notify(fields)
    }

    /// `READY=1`, with an optional status line in the same datagram so `systemctl status` never shows a stale one.
    @discardableResult
    public func ready(status: String? = nil) -> NotifyResult {
        self.notify([.ready] + (status.map { [.status($0)] } ?? []))
    }

    /// `RELOADING=1` with `MONOTONIC_USEC=` in the same datagram.
    ///
    /// `Type=notify-reload` units must send both together: systemd uses the timestamp to tell this reload's later
    /// `READY=1` from one that was already on its way.
    @discardableResult
    public func reloading() -> NotifyResult {
        self.notify(.reloading, .monotonicMicroseconds(Self.monotonicMicroseconds()))
    }

    /// `STOPPING=1`: systemd then waits for the process to exit instead of treating the exit as a crash.
    @discardableResult
    public func stopping() -> NotifyResult {
        self.notify(.stopping)
    }

    /// `STATUS=…`: a single line; newlines are replaced by spaces.
    @discardableResult
    public func status(_ text: String) -> NotifyResult {
        self.notify(.status(text))
    }

    /// `WATCHDOG=1`: send at ``Watchdog/interval`` from the loop whose liveness it vouches for.
    @discardableResult
    public func watchdog() -> NotifyResult {
        self.notify(.watchdog)
    }

    /// `ERRNO=…`, optionally with a status line explaining it, before the process exits on a failure.
    @discardableResult
    public func errno(_ value: Int32, status: String? = nil) -> NotifyResult {
        self.notify([.errno(value)] + (status.map { [.status($0)] } ?? []))
    }

    /// `EXIT_STATUS=…` before the process exits.
    @discardableResult
    public func exitStatus(_ value: Int32) -> NotifyResult {
        self.notify(.exitStatus(value))
    }

    /// `CLOCK_MONOTONIC` in microseconds, the clock systemd compares `MONOTONIC_USEC=` against.
    public static func monotonicMicroseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1_000
    }
}
