import RemindCore
import RemindStore
import Synchronization

/// The outcomes a group-committed batch's changes decided, kept across the batch's retry so
/// that each change runs exactly once: a batch the server refused goes again user by user with
/// these outcomes, not by running the changes a second time.
///
/// An outcome is only valid on the record it was decided on, so each user's record before the
/// batch is kept too; a retry that finds another instance changed the user meanwhile refuses
/// that user's changes as unavailable for now (the client retries them, and nothing of them
/// was stored).
final class DecidedChanges: Sendable {
    private struct State {
        /// The outcome of each change of the batch, by its position.
        var outcomes: [Int: ReportOutcome] = [:]
        /// Each user's record before the batch's first change of them.
        var before: [UserID: UserRecord?] = [:]
        var count = 0
    }

    private let state: Mutex<State>
    /// Positions in the whole batch of the changes this one holds, in order; nil for a batch
    /// taken whole.
    private let positions: [Int]?

    init() {
        state = Mutex(State())
        positions = nil
    }

    private init(_ state: State, positions: [Int]) {
        self.state = Mutex(state)
        self.positions = positions
    }

    /// Whether the batch's changes ran (all at once, or none: the first attempt got that far).
    var isComplete: Bool { state.withLock { $0.count > 0 && $0.outcomes.count == $0.count } }

    /// The outcomes of `batch`, in order: decided now by `decide` on the records the changes
    /// see (`current` for a user's first change, then what the one before left), or, when
    /// already decided, checked against `current` and given back.
    func outcomes(
        of batch: [PendingUpdate], current: (UserID) -> UserRecord?,
        decide: (PendingUpdate, UserRecord?) -> ReportOutcome
    ) throws -> [ReportOutcome] {
        try state.withLock { state in
            let positions = self.positions ?? Array(batch.indices)
            let decided = positions.compactMap { state.outcomes[$0] }
            if !decided.isEmpty {
                for update in batch {
                    guard let before = state.before[update.userID], before == current(update.userID) else {
                        throw StoreError.databaseUnavailable(
                            "\(update.userID) changed while their batch was retried; retry the report")
                    }
                }
                return decided
            }
            var records: [UserID: UserRecord] = [:]
            var outcomes: [ReportOutcome] = []
            for (position, update) in zip(positions, batch) {
                let record = records[update.userID] ?? current(update.userID)
                if records[update.userID] == nil { state.before[update.userID] = .some(record) }
                let outcome = decide(update, record)
                // A refused change leaves the record as it was for the user's next change.
                if outcome.refusal == nil { records[update.userID] = outcome.record }
                state.outcomes[position] = outcome
                outcomes.append(outcome)
            }
            state.count = batch.count
            return outcomes
        }
    }

    /// The batch's positions grouped by user, each group in the batch's order, users in the
    /// order of their first change.
    static func byUser(_ batch: [PendingUpdate]) -> [[Int]] {
        var groups: [UserID: Int] = [:]
        var result: [[Int]] = []
        for (index, update) in batch.enumerated() {
            if let group = groups[update.userID] {
                result[group].append(index)
            } else {
                groups[update.userID] = result.count
                result.append([index])
            }
        }
        return result
    }

    /// What was decided for the changes at `positions`, for their retry on their own.
    func subset(_ positions: [Int]) -> DecidedChanges {
        DecidedChanges(state.withLock { $0 }, positions: positions)
    }
}
