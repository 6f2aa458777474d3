import Hummingbird
import HummingbirdCore
import Logging
import NIOCore

#if canImport(Glibc)
    import Glibc
#endif

/// The limits every listener puts on its clients, so that slow or oversized requests are cut
/// off instead of holding the daemon's resources (slowloris).
///
/// - **Header deadline**: a request head must arrive within `headerTimeout` of the connection
///   opening or of the previous response, however slowly its bytes trickle in (slowloris);
///   otherwise the connection is closed.
/// - **Idle timeout**: while a request body is read, a connection that sends nothing for this
///   long is closed. A request already read and being answered is never cut.
/// - **Header limits**: the request line and each header at most 8 KiB, all of them at most
///   16 KiB, at most 100 headers. The API needs a few hundred bytes; a larger head is answered
///   `400` and the connection closed. A request line without an HTTP version (HTTP/0.9) is
///   answered `400` at once. (Bodies are capped at 64 KiB by the responder: `413`.)
/// - **Connections**: at most `maximumConnections` open per listener. At the cap, the
///   connection that has waited longest for a request head is closed to make room for a new
///   one, so idle clients cannot starve real ones; only when every connection is busy with a
///   request do new ones wait in the kernel's backlog. Without a cap, enough idle clients would
///   use up the daemon's file descriptors, and then the store could not open its journal or a
///   user file.
///
/// The timing is ``ConnectionDeadlines``, the choice of connection to close
/// ``ConnectionTable``; ``GuardedHTTP1Channel`` puts them into each connection's pipeline.
enum HTTPLimits {
    static let headerTimeout: TimeAmount = .seconds(5)
    /// Connections the kernel queues before the daemon accepts them. Hummingbird's 256 fills in
    /// a burst of idle clients (2,000 in a second), and then a client connecting without waiting
    /// (remindctl's event loop) is refused with `EAGAIN` even though room would be made for it
    /// in a moment. The kernel caps it at `net.core.somaxconn` (4,096 by default).
    static let backlog = 1024
    static let idleTimeout: TimeAmount = .seconds(10)

    /// Hummingbird's own idle timeout is off: ``ConnectionDeadlineHandler`` keeps both deadlines.
    static var http1: HTTP1Channel.Configuration {
        HTTP1Channel.Configuration(
            idleTimeout: nil,
            httpDecoderConfiguration: .init(
                maxHeaderFieldSize: 8 * 1024, maxHeaderListSize: 16 * 1024, maxHeaderFieldCount: 100))
    }

    /// A quarter of the soft descriptor limit for each listener (a Unix socket and at most one
    /// TCP address), at most 1,024: half of the descriptors always stay for the store and the
    /// sinks. The unit raises the limit to 65,536; a shell's usual 1,024 gives 256.
    static var maximumConnections: Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur != rlim_t.max else {
            return 1024
        }
        return max(16, min(1024, Int(limit.rlim_cur / 4)))
    }

    static func connectionCap(logger: Logger) -> ConnectionGuard {
        ConnectionGuard(capacity: maximumConnections, logger: logger)
    }
}
