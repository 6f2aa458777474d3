import Synchronization

/// A wake-up call between tasks: `signal()` wakes the current waiter, or the next one to
/// call `wait()` if nobody waits yet. Signals do not count: several before a wait wake it once.
///
/// Used to wake the scheduler when a report moves a due time earlier, and a sink's
/// dispatcher when the outbox gains an event, without polling.
public final class AsyncSignal: Sendable {
    private struct State {
        var pending = false
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let state = Mutex(State())

    public init() {}

    public func signal() {
        let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
            if let waiter = state.waiter {
                state.waiter = nil
                return waiter
            }
            state.pending = true
            return nil
        }
        waiter?.resume()
    }

    /// Returns after a signal, or at once when cancelled. One waiter at a time.
    public func wait() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let resumeNow = state.withLock { state -> Bool in
                    if state.pending || Task.isCancelled {
                        state.pending = false
                        return true
                    }
                    precondition(state.waiter == nil, "AsyncSignal has one waiter at a time")
                    state.waiter = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let waiter = state.withLock { state -> CheckedContinuation<Void, Never>? in
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume()
        }
    }
}
