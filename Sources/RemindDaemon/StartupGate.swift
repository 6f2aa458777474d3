import Synchronization

/// Something `READY=1` waits for besides the listeners: the database of the PostgreSQL
/// backend (DESIGN §2: "READY=1 waits for the database"). Open from the start when there is
/// nothing to wait for.
public final class StartupGate: Sendable {
    private struct State {
        var open: Bool
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state: Mutex<State>

    public init(open: Bool) {
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

    /// Returns once open (at shutdown too: the daemon then exits without READY).
    public func wait() async {
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
