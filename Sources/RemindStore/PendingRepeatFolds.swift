import Foundation
import RemindCore

/// Repeated reports the daemon answered from memory and handed over (`UserStore.noteRepeats`),
/// not yet in their users' files: the files backend's counters-only write.
///
/// Noting them costs a dictionary merge: no record is read or decoded, no file or log written.
/// The next checkpoint logs the users noted since the last one in one small entry
/// (`LoggedRepeats`, idempotent to fold) and folds them into the user files later, a bounded
/// number of users per checkpoint (`FileStateStore.foldPending`), or with the user's next
/// change, whose record is loaded with them folded in (`FileStateStore.materialized`) and
/// whose log record therefore carries them. A crash loses what was noted since the last
/// checkpoint, which the `UserStore` contract allows for counters, and never a change.
/// `RepeatPathTests` pins this.
///
/// Owned by the store's actor: it is only ever touched inside it.
struct PendingRepeatFolds {
    private struct Entry {
        var repeats: LoggedRepeats
        /// Whether `repeats` gained some since they were last logged.
        var unlogged: Bool
    }

    private var entries: [UserID: Entry] = [:]
    /// Users noted since the last fold (may repeat, may be gone).
    private var pendingUsers: [UserID] = []
    /// Users noted since they were last logged (may repeat, may be gone).
    private var unloggedUsers: [UserID] = []

    var count: Int { entries.count }

    /// Takes repeats in, after any the user already has here.
    mutating func note(_ logged: LoggedRepeats) {
        let userID = logged.userID
        if let index = entries.index(forKey: userID) {
            entries.values[index].repeats.append(logged)
            if !entries.values[index].unlogged {
                entries.values[index].unlogged = true
                unloggedUsers.append(userID)
            }
        } else {
            entries[userID] = Entry(repeats: logged, unlogged: true)
            pendingUsers.append(userID)
            unloggedUsers.append(userID)
        }
    }

    /// Takes the user's repeats, to fold them into the record.
    mutating func take(_ userID: UserID) -> LoggedRepeats? {
        entries.removeValue(forKey: userID)?.repeats
    }

    /// Puts back repeats taken for a fold that failed, ahead of any noted since.
    mutating func restore(_ logged: LoggedRepeats) {
        var restored = logged
        if let newer = entries[logged.userID]?.repeats { restored.append(newer) }
        entries[logged.userID] = Entry(repeats: restored, unlogged: true)
        pendingUsers.append(logged.userID)
        unloggedUsers.append(logged.userID)
    }

    func hasPending(_ userID: UserID) -> Bool { entries[userID] != nil }

    /// The repeats of users noted since they were last logged, now counted as logged: what a
    /// checkpoint appends to the log (`LogEntry.repeats`).
    mutating func takeUnlogged() -> [LoggedRepeats] {
        defer { unloggedUsers = [] }
        var taken: [LoggedRepeats] = []
        taken.reserveCapacity(unloggedUsers.count)
        for userID in unloggedUsers {
            guard let index = entries.index(forKey: userID), entries.values[index].unlogged else { continue }
            entries.values[index].unlogged = false
            taken.append(entries.values[index].repeats)
        }
        return taken
    }

    /// Every user's repeats, now counted as logged: what a snapshot logs again in the segment
    /// it keeps, since the segments it deletes held them.
    mutating func takeAllPending() -> [LoggedRepeats] {
        unloggedUsers = []
        var taken: [LoggedRepeats] = []
        taken.reserveCapacity(entries.count)
        for index in entries.indices {
            entries.values[index].unlogged = false
            taken.append(entries.values[index].repeats)
        }
        return taken
    }

    /// Marks users' repeats as not logged (an append that failed).
    mutating func markUnlogged(_ userIDs: some Sequence<UserID>) {
        for userID in userIDs {
            guard let index = entries.index(forKey: userID), !entries.values[index].unlogged else { continue }
            entries.values[index].unlogged = true
            unloggedUsers.append(userID)
        }
    }

    /// The users that may have repeats here; the list starts afresh. A caller that leaves some
    /// pending gives them back with `keepPending`.
    mutating func takePendingUsers() -> [UserID] {
        defer { pendingUsers = [] }
        return pendingUsers
    }

    mutating func keepPending(_ userIDs: some Sequence<UserID>) {
        pendingUsers += userIDs.lazy.filter { hasPending($0) }
    }

    /// Gives back users a fold did not reach, ahead of the rest: they have waited longest.
    mutating func returnPending(_ userIDs: [UserID]) {
        pendingUsers = userIDs.filter { hasPending($0) } + pendingUsers
    }

    /// Forgets a user who is gone.
    mutating func remove(_ userID: UserID) {
        entries[userID] = nil
    }
}
