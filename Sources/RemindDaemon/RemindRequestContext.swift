import Hummingbird
import HummingbirdAuth
import NIOCore
import RemindAPI

/// The request context: Hummingbird's core storage, the connection's peer credentials on a Unix
/// socket (read once when the connection was set up, ``GuardedHTTP1Channel``) and the caller
/// the listener's ``CallerAuthenticator`` found for the request.
public struct RemindRequestContext: AuthRequestContext {
    public var coreContext: CoreRequestContextStorage
    /// SO_PEERCRED of a Unix-socket connection; nil on TCP and in-process.
    let peer: PeerCredentials?
    /// Who sent the request; nil until authenticated, and for a Unix-socket peer whose
    /// credentials could not be read.
    public var identity: Caller?

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
