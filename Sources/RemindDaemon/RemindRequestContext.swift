import Hummingbird
import NIOCore
import RemindAPI

/// The request context: Hummingbird's core storage plus the connection's peer credentials on
/// a Unix socket, read once when the connection was set up (``GuardedHTTP1Channel``), which
/// decide what a Unix-socket client may change.
public struct RemindRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// SO_PEERCRED of a Unix-socket connection; nil on TCP and in-process.
    let peer: PeerCredentials?

    /// A context without a connection: in-process tests through Hummingbird's `Application`.
    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        peer = nil
    }

    init(source: ApplicationRequestContextSource, peer: PeerCredentials?) {
        coreContext = .init(source: source)
        self.peer = peer
    }

    public var maxUploadSize: Int { APIPaths.maximumBodySize }
}
