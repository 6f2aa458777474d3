import DequeModule
import Foundation
import RemindCore
import Synchronization

/// iOS throttles background pushes and starts dropping them when an app gets several an
/// hour, so each push sink allows each user `perHour` background pushes in any sliding hour.
///
/// Withdraws are always sent (a stale "grant Always" notification on a user who already did
/// is worse than a throttled push) but use up the budget; heartbeats beyond it are skipped.
/// The budget is kept in memory: after a restart a user may get one hour's budget again,
/// which iOS absorbs, where persisting every background push would cost a write each.
final class BackgroundBudget: Sendable {
    private struct State {
        var sent: [UserID: Deque<Date>] = [:]
        var admissions = 0
    }

    let perHour: Int
    private let state = Mutex(State())

    init(perHour: Int) {
        self.perHour = perHour
    }

    /// Whether a background push to `userID` may go now; when it may (or `force`), counts it.
    func admit(_ userID: UserID, now: Date, force: Bool) -> Bool {
        let hourAgo = now.addingTimeInterval(-3600)
        return state.withLock { state in
            state.admissions += 1
            // Now and then drop users whose pushes all left the window, so the map stays the
            // size of the last hour's recipients.
            if state.admissions % 4096 == 0 {
                state.sent = state.sent.filter { ($0.value.last ?? .distantPast) > hourAgo }
            }
            var times = state.sent[userID] ?? []
            while let first = times.first, first <= hourAgo { times.removeFirst() }
            guard force || times.count < perHour else {
                state.sent[userID] = times
                return false
            }
            times.append(now)
            state.sent[userID] = times
            return true
        }
    }
}
