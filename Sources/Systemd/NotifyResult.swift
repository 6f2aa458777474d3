/// What became of an `sd_notify` message.
///
/// "Not supported" and "failed" are kept apart on purpose: running outside systemd (no `NOTIFY_SOCKET`) is normal
/// and worth at most a debug line, while a failure means systemd is waiting for a message it will never get.
public enum NotifyResult: Sendable, Hashable {
    /// The datagram reached the socket named by `NOTIFY_SOCKET`.
    case sent
    /// `NOTIFY_SOCKET` is not set: the process was not started by systemd as `Type=notify` (or `notify-reload`).
    case notSupported
    /// Sending failed; `errno` is positive, e.g. `ENOENT` when the socket does not exist.
    case failed(errno: Int32)

    init(returnValue: Int32) {
        if returnValue > 0 {
            self = .sent
        } else if returnValue == 0 {
            self = .notSupported
        } else {
            self = .failed(errno: -returnValue)
        }
    }
}
