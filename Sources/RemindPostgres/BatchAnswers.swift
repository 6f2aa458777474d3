import RemindStore
import Synchronization

/// Collects the answers of a batch's changes, which arrive from one or more transactions, and
/// resumes the batch's caller once the last one is in.
final class BatchAnswers: Sendable {
    private struct State {
        var results: [Result<StoredReport, any Error>?]
        var remaining: Int
        var continuation: CheckedContinuation<[Result<StoredReport, any Error>], Never>?
    }

    private let state: Mutex<State>

    init(count: Int, _ continuation: CheckedContinuation<[Result<StoredReport, any Error>], Never>) {
        state = Mutex(State(results: Array(repeating: nil, count: count), remaining: count, continuation: continuation))
    }

    /// The answer of the change at `index`; each index is answered once.
    func set(_ index: Int, _ result: Result<StoredReport, any Error>) {
        let done = state.withLock {
            state -> (CheckedContinuation<[Result<StoredReport, any Error>], Never>, [Result<StoredReport, any Error>])?
            in
            state.results[index] = result
            state.remaining -= 1
            guard state.remaining == 0, let continuation = state.continuation else { return nil }
            state.continuation = nil
            return (continuation, state.results.map { $0! })
        }
        if let (continuation, results) = done { continuation.resume(returning: results) }
    }
}
