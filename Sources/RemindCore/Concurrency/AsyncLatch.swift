import Synchronization

/// A one-way gate between tasks: closed until `open()`, then every waiter, before and after,
/// goes on. Used for what must happen once before others may proceed (the PostgreSQL store's
/// first connection; `READY=1` waiting for it).
///
/// A waiter is not cancellable: a caller that must not wait forever bounds the wait with a
/// timeout that abandons it.
public final class AsyncLatch: Sendable {
    private struct State {
        var open: Bool
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state: Mutex<State>

    public init(open: Bool = false) {
        state = Mutex(State(open: open))
    }

    public func open() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.open = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    public var isOpen: Bool { state.withLock { $0.open } }

    /// Returns once open.
    public func wait() async {
        if isOpen { return }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state -> Bool in
                if state.open { return true }
                state.waiters.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }
}
