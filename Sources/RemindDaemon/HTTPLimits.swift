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
/// - **Idle timeout**: a connection that completes no request head (or body part) for this
///   long is closed. Hummingbird only counts whole HTTP parts as activity, so a client that
///   trickles a header block byte by byte is closed after this long too: it is also the
///   header timeout. A request already read and being answered is never cut.
/// - **Header limits**: the request line and each header at most 8 KiB, all of them at most
///   16 KiB, at most 100 headers. The API needs a few hundred bytes; a larger head is answered
///   `400` and the connection closed by Hummingbird's HTTP parser. (Bodies are capped at
///   64 KiB by the responder: `413`.)
/// - **Connections**: at most `maximumConnections` open per listener; more wait in the kernel's
///   backlog until one closes. Without a cap, enough idle clients would use up the daemon's
///   file descriptors, and then the store could not open its journal or a user file.
enum HTTPLimits {
    static let idleTimeout: TimeAmount = .seconds(10)

    static var http1: HTTP1Channel.Configuration {
        HTTP1Channel.Configuration(
            idleTimeout: idleTimeout,
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

    static func connectionCap(logger: Logger) -> MaximumAvailableConnections {
        MaximumAvailableConnections(maximumConnections, logger: logger)
    }
}
