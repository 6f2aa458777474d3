import Synchronization

/// A latch for many waiters: `wait` returns once `open` was called (before or after), so a
/// test can hold requests in a server until it has seen what it waits for.
public final class Gate: Sendable {
    private struct State {
        var isOpen = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    public init() {}

    public var isOpen: Bool { state.withLock { $0.isOpen } }

    public func open() {
        let waiters = state.withLock { state in
            state.isOpen = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    public func wait() async {
        await withCheckedContinuation { continuation in
            let now = state.withLock { state in
                if !state.isOpen { state.waiters.append(continuation) }
                return state.isOpen
            }
            if now { continuation.resume() }
        }
    }
}
