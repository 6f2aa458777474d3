import HummingbirdCore
import Logging
import NIOCore
import Synchronization

/// One listener's connection cap, which closes idle connections to make room for new ones
/// (the policy is ``ConnectionTable``'s).
///
/// It is the listener's `AvailableConnectionsDelegate` (told of every accepted and closed
/// connection, and asked whether to accept more), and each connection's
/// ``ConnectionDeadlineHandler`` tells it whether the connection waits for a request head. Both
/// run on different event loops, hence the lock.
final class ConnectionGuard: AvailableConnectionsDelegate, Sendable {
    private struct State {
        var table: ConnectionTable<ObjectIdentifier>
        var channels: [ObjectIdentifier: any Channel] = [:]
    }

    private let state: Mutex<State>
    private let logger: Logger

    init(capacity: Int, logger: Logger) {
        self.state = Mutex(State(table: ConnectionTable(capacity: capacity)))
        self.logger = logger
    }

    var capacity: Int { state.withLock { $0.table.capacity } }

    func connectionOpened() {
        let evicted = state.withLock { state in
            state.table.accept().compactMap { state.channels[$0] }
        }
        guard !evicted.isEmpty else { return }
        logger.debug("at the connection cap: closing \(evicted.count) connection(s) that sent no request head")
        for channel in evicted { channel.close(promise: nil) }
    }

    func connectionClosed() {
        state.withLock { $0.table.closed() }
    }

    func isAcceptingNewConnections() -> Bool {
        state.withLock { $0.table.isAccepting }
    }

    /// A connection's handler reports its state: waiting for a request head since `since`, or
    /// busy (nil).
    func update(_ channel: any Channel, awaitingHeadSince since: NIODeadline?) {
        let id = ObjectIdentifier(channel)
        state.withLock { state in
            if state.channels[id] == nil { state.channels[id] = channel }
            state.table.update(id, awaitingHeadSince: since)
        }
    }

    func remove(_ channel: any Channel) {
        let id = ObjectIdentifier(channel)
        state.withLock { state in
            state.channels[id] = nil
            state.table.remove(id)
        }
    }
}
