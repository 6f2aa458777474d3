import Hummingbird
import NIOCore
import RemindAPI

/// The request context: Hummingbird's core storage plus the connection, whose peer
/// credentials decide what a Unix-socket client may change.
public struct RemindRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    public let channel: (any Channel)?

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        channel = source.channel
    }

    public var maxUploadSize: Int { APIPaths.maximumBodySize }
}
