import DequeModule
import RemindCore

/// A keyed async mutex: at most one task owns a user at a time, and waiters get the user in
/// the order they asked, each handed ownership directly by the task before it.
///
/// Pure bookkeeping for an actor, which supplies the suspension (see
/// `FileStateStore.withUser`); not to be confused with the outbox's claim and release of
/// events.
struct UserLocks {
    private var held: Set<UserID> = []
    private var waiters: [UserID: Deque<CheckedContinuation<Void, Never>>] = [:]

    func isHeld(_ userID: UserID) -> Bool { held.contains(userID) }

    /// Takes the user if nobody holds it; false when the caller must `wait`.
    mutating func tryLock(_ userID: UserID) -> Bool {
        held.insert(userID).inserted
    }

    /// Queues a task for a held user; it resumes owning the user.
    mutating func wait(for userID: UserID, _ continuation: CheckedContinuation<Void, Never>) {
        waiters[userID, default: []].append(continuation)
    }

    /// Hands the user to the next waiter, or frees it.
    mutating func unlock(_ userID: UserID) {
        if let next = waiters[userID]?.popFirst() {
            if waiters[userID]?.isEmpty == true { waiters[userID] = nil }
            next.resume()
            return
        }
        held.remove(userID)
    }
}
