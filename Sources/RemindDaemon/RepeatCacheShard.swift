import Foundation
import RemindAPI
import RemindCore

/// What answers a repeated report from memory (a repeat, ARCHITECTURE.md "Glossary"): for each
/// user who reported since start, the `RepeatCriterion` of their record, their status as
/// rendered (`StatusTemplate`), the three values a repeat moves, and the repeats not yet
/// handed to the store.
///
/// A repeat costs a dictionary lookup, a comparison and a splice of the cached answer: no
/// record is read or decoded, nothing is written. The store gets the repeats later, in one
/// counters-only write for all users (`UserStore.noteRepeats`, before each checkpoint), or
/// folded into the user's next change (`begin` hands them to it). A crash loses the repeats
/// since the last checkpoint, which the store's contract allows for counters, never a change.
///
/// Rows are made from records a report was just applied to, so they agree with the policy the
/// change ran under; anything else that changes a record (a fire, a forget, a dead token, a new
/// policy) drops the row (`invalidate`), and the user's next report takes the full path again.
/// A user with a change in progress (`begin` to `end`) gets no answer here: their report waits
/// for the store, in arrival order. When several of one user's changes overlap, the row is
/// made from the newest record (the highest `reportCount`: each report counts one) once the
/// last of them ends, and not at all if the user was invalidated meanwhile.
///
/// One shard of a `RepeatCache`, which keeps it behind a lock.
struct RepeatCacheShard {
    struct Row {
        /// What answers a repeat; nil once the record changed otherwise: the row then only
        /// keeps its pending repeats for the store.
        var answering: (criterion: RepeatCriterion, template: StatusTemplate)?
        var observedAt: Date
        /// The user's `reportCount` with every repeat answered here in, handed over or not.
        var reportCount: Int
        var lastReportAt: Date
        /// Repeats not yet handed to the store.
        var pending = PendingRepeats()
    }

    /// A user with changes in progress.
    private struct Ownership {
        var changes = 0
        /// Whether the record changed otherwise meanwhile: no row is made when they end.
        var stale = false
        /// Whether a change was stored.
        var stored = false
        /// The row of the newest record a stored change left.
        var newest: Row?
    }

    private var rows: [UserID: Row] = [:]
    /// Users whose row gained pending repeats since they were last handed over (may repeat).
    private var pendingUsers: [UserID] = []
    private var owned: [UserID: Ownership] = [:]

    var count: Int { rows.count }

    /// Answers `report` from memory when it only repeats the user's state: notes it as
    /// pending and returns the encoded answer (the status, no ask). Nil when it does not (or the user has no row, or
    /// a change in progress): the report takes the full path.
    mutating func answer(_ report: PermissionReport, of userID: UserID, receivedAt: Date) -> [UInt8]? {
        guard let index = rows.index(forKey: userID), let answering = rows.values[index].answering,
            answering.criterion.isRepeat(report, receivedAt: receivedAt), owned.isEmpty || owned[userID] == nil
        else { return nil }
        if rows.values[index].pending.isEmpty { pendingUsers.append(userID) }
        // In place: the row's arrays are not copied.
        rows.values[index].pending.add(report, receivedAt: receivedAt)
        rows.values[index].reportCount += 1
        rows.values[index].lastReportAt = max(rows.values[index].lastReportAt, receivedAt.millisecondPrecision)
        if report.observedAt > rows.values[index].observedAt { rows.values[index].observedAt = report.observedAt }
        let row = rows.values[index]
        return answering.template.renderAnswer(
            observedAt: row.observedAt, reportCount: row.reportCount, lastReportAt: row.lastReportAt)
    }

    /// A change of the user begins: no repeat of theirs is answered until it ends. Returns the
    /// repeats it must fold into the record before its own (they come first).
    mutating func begin(_ userID: UserID) -> LoggedRepeats? {
        owned[userID, default: Ownership()].changes += 1
        guard let index = rows.index(forKey: userID), !rows.values[index].pending.isEmpty else { return nil }
        let taken = LoggedRepeats(
            userID: userID, reportCount: rows.values[index].reportCount, repeats: rows.values[index].pending)
        rows.values[index].pending = PendingRepeats()
        return taken
    }

    /// How a change of a user ended.
    enum Ending {
        /// Stored, with the row made from the record it left (nil when the user has no status).
        case stored(Row?)
        /// Failed: nothing changed, and the repeats `begin` gave it are given back.
        case failed(LoggedRepeats?)
    }

    /// A change of the user ended.
    mutating func end(_ userID: UserID, _ ending: Ending) {
        var ownership = owned[userID] ?? Ownership(changes: 1)
        ownership.changes -= 1
        switch ending {
        case .stored(let row):
            ownership.stored = true
            if let row, row.reportCount >= ownership.newest?.reportCount ?? .min { ownership.newest = row }
        case .failed(let restoring):
            if let restoring { giveBack(restoring) }
        }
        guard ownership.changes == 0 else {
            owned[userID] = ownership
            return
        }
        owned[userID] = nil
        guard var newest = ownership.newest else {
            // A stored change left no status to answer with: the old row is the old record's.
            if ownership.stale || ownership.stored { stopAnswering(userID) }
            return
        }
        // Repeats given back by a failed change are not in the newest record.
        let pending = rows[userID]?.pending ?? PendingRepeats()
        newest.pending = pending
        newest.reportCount += pending.count
        if ownership.stale { newest.answering = nil }
        rows[userID] = newest.answering == nil && pending.isEmpty ? nil : newest
    }

    /// Keeps repeats given back (a failed change, a refused flush), ahead of any noted since.
    mutating func giveBack(_ restoring: LoggedRepeats) {
        let userID = restoring.userID
        guard var row = rows[userID] else {
            rows[userID] = Row(
                observedAt: .distantPast, reportCount: restoring.reportCount,
                lastReportAt: restoring.repeats.lastReceivedAt ?? .distantPast, pending: restoring.repeats)
            pendingUsers.append(userID)
            return
        }
        if row.pending.isEmpty { pendingUsers.append(userID) }
        var pending = restoring.repeats
        pending.append(row.pending)
        row.pending = pending
        rows[userID] = row
    }

    /// The users' records changed otherwise: their rows answer no more repeats.
    mutating func invalidate(_ userIDs: some Sequence<UserID>) {
        for userID in userIDs {
            if owned[userID] != nil { owned[userID]?.stale = true }
            stopAnswering(userID)
        }
    }

    /// Every record may change (a new policy): no row answers any more.
    mutating func invalidateAll() {
        for index in owned.indices { owned.values[index].stale = true }
        rows = rows.filter { !$0.value.pending.isEmpty }
        for index in rows.indices { rows.values[index].answering = nil }
    }

    private mutating func stopAnswering(_ userID: UserID) {
        guard let index = rows.index(forKey: userID) else { return }
        if rows.values[index].pending.isEmpty {
            rows.remove(at: index)
        } else {
            rows.values[index].answering = nil
        }
    }

    /// The pending repeats of every user without a change in progress, handed over: the rows
    /// keep answering, with nothing pending.
    mutating func takeUnflushed() -> [LoggedRepeats] {
        var taken: [LoggedRepeats] = []
        var kept: [UserID] = []
        taken.reserveCapacity(pendingUsers.count)
        for userID in pendingUsers {
            guard owned.isEmpty || owned[userID] == nil else {
                kept.append(userID)
                continue
            }
            if let logged = takePending(userID) { taken.append(logged) }
        }
        pendingUsers = kept
        return taken
    }

    /// The user's pending repeats, handed over (nil when none, or a change of theirs is in
    /// progress: it takes them).
    mutating func takeUnflushed(of userID: UserID) -> LoggedRepeats? {
        guard owned.isEmpty || owned[userID] == nil else { return nil }
        // Their entry in `pendingUsers` stays, and finds nothing pending.
        return takePending(userID)
    }

    private mutating func takePending(_ userID: UserID) -> LoggedRepeats? {
        guard let index = rows.index(forKey: userID), !rows.values[index].pending.isEmpty else { return nil }
        let row = rows.values[index]
        if row.answering == nil {
            rows.remove(at: index)
        } else {
            rows.values[index].pending = PendingRepeats()
        }
        return LoggedRepeats(userID: userID, reportCount: row.reportCount, repeats: row.pending)
    }
}
