import Logging
import RemindCore
import RemindSinks
import ServiceLifecycle
import Systemd

/// Runs one sink's dispatcher as a service. On shutdown the delivery in progress finishes;
/// whatever is left stays in the durable outbox for the next start.
public struct DispatcherService<C: Clock>: Service where C.Duration == Duration {
    let dispatcher: SinkDispatcher<C>

    public init(dispatcher: SinkDispatcher<C>) {
        self.dispatcher = dispatcher
    }

    public func run() async throws {
        await cancelWhenGracefulShutdown {
            await withHighPriority { await dispatcher.run() }
        }
    }
}
