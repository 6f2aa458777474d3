import Foundation
import RemindCore

/// What answers a repeated report from memory (a repeat, ARCHITECTURE.md "Glossary"): for each user who reported since
/// start, the `RepeatCriterion` of their record, their status as rendered (`StatusTemplating`), the three
/// values a repeat moves, and the repeats not yet folded into the record.
///
/// A repeat costs a dictionary lookup, a comparison and a splice of the cached answer: no
/// record is read or decoded, no file or log written. The next checkpoint logs the user's
/// pending repeats in one small entry among all such users' (`LoggedRepeats`, idempotent to
/// fold) and folds them into the user file later, a bounded number of users per checkpoint
/// (`FileStateStore.foldRepeats`), or with the user's next change, whose log record carries
/// them. A crash loses the `reportCount`, `lastReportAt`, `platform` and `appVersion` of the
/// repeats since the last checkpoint (2 s), which the `StateStore` contract allows, and never
/// a change; of the run's observation times, those of repeats not yet in the file, except the
/// newest. `RepeatPathTests` pins this.
///
/// Rows are made from records a report was just applied to, so they agree with the current
/// policy; anything else that changes a record (a fire, a delete, a dead token, a new policy)
/// drops the row, and the user's next report takes the full path again. A user the store owns
/// (`busy`: a change, a fire or a fold in progress) gets no answer here: their report waits
/// for the store, in arrival order.
///
/// One shard of a `RepeatRows`, which keeps it behind a lock.
struct RepeatRowShard {
    struct Row {
        /// Nil once a new policy came: the row then only keeps its pending repeats for the fold.
        var criterion: RepeatCriterion?
        var template: any StatusTemplating
        var observedAt: Date
        var reportCount: Int
        var lastReportAt: Date
        var pending = PendingRepeats()
        /// Whether `pending` gained repeats since it was last logged.
        var unlogged = false
    }

    private var rows: [UserID: Row] = [:]
    /// Users whose row gained pending repeats since the last fold (may repeat, may be stale).
    private var pendingUsers: [UserID] = []
    /// Users whose row gained repeats since they were last logged (may be stale).
    private var unloggedUsers: [UserID] = []
    /// Users the store owns right now.
    private var busy: Set<UserID> = []

    var count: Int { rows.count }

    /// Answers `report` from memory when it only repeats the user's state: notes it as
    /// pending and returns the encoded status. Nil when it does not (or the user has no row, or
    /// is busy): the report takes the full path.
    mutating func answer(_ report: PermissionReport, of userID: UserID, receivedAt: Date) -> [UInt8]? {
        guard let index = rows.index(forKey: userID), rows.values[index].criterion?.isRepeat(report) == true,
            busy.isEmpty || !busy.contains(userID)
        else { return nil }
        if rows.values[index].pending.isEmpty { pendingUsers.append(userID) }
        if !rows.values[index].unlogged {
            rows.values[index].unlogged = true
            unloggedUsers.append(userID)
        }
        // In place: the row's arrays are not copied.
        return Self.note(report, receivedAt: receivedAt, in: &rows.values[index])
    }

    private static func note(_ report: PermissionReport, receivedAt: Date, in row: inout Row) -> [UInt8] {
        row.pending.add(report, receivedAt: receivedAt)
        row.reportCount += 1
        row.lastReportAt = max(row.lastReportAt, receivedAt.millisecondPrecision)
        if report.observedAt > row.observedAt { row.observedAt = report.observedAt }
        return row.template.render(
            observedAt: row.observedAt, reportCount: row.reportCount, lastReportAt: row.lastReportAt)
    }

    mutating func setBusy(_ userID: UserID, _ isBusy: Bool) {
        if isBusy { busy.insert(userID) } else { busy.remove(userID) }
    }

    /// Sets a user's row, made from a record a report was just applied to (pending repeats
    /// folded in); nil drops it.
    mutating func set(_ row: Row?, of userID: UserID) {
        rows[userID] = row
    }

    /// Takes the user's pending repeats, to fold them into the record; the row stays.
    mutating func takePending(_ userID: UserID) -> PendingRepeats? {
        guard let pending = rows[userID]?.pending, !pending.isEmpty else { return nil }
        rows[userID]?.pending = PendingRepeats()
        return pending
    }

    mutating func restorePending(_ pending: PendingRepeats, of userID: UserID) {
        guard let row = rows[userID] else { return }
        if row.pending.isEmpty { pendingUsers.append(userID) }
        rows[userID]?.pending = pending
        markUnlogged(CollectionOfOne(userID))
    }

    /// The pending repeats of users who gained some since they were last logged, now counted
    /// as logged: what a checkpoint appends to the log (`LogEntry.repeats`).
    mutating func takeUnlogged() -> [LoggedRepeats] {
        defer { unloggedUsers = [] }
        var taken: [LoggedRepeats] = []
        taken.reserveCapacity(unloggedUsers.count)
        for userID in unloggedUsers {
            guard let index = rows.index(forKey: userID), rows.values[index].unlogged else { continue }
            rows.values[index].unlogged = false
            if let logged = Self.logged(rows.values[index], of: userID) { taken.append(logged) }
        }
        return taken
    }

    /// Every row's pending repeats, now counted as logged: what a snapshot logs again in the
    /// segment it keeps, since the segments it deletes held them.
    mutating func takeAllPending() -> [LoggedRepeats] {
        unloggedUsers = []
        var taken: [LoggedRepeats] = []
        for index in rows.indices {
            rows.values[index].unlogged = false
            if let logged = Self.logged(rows.values[index], of: rows.keys[index]) { taken.append(logged) }
        }
        return taken
    }

    private static func logged(_ row: Row, of userID: UserID) -> LoggedRepeats? {
        guard !row.pending.isEmpty else { return nil }
        return LoggedRepeats(userID: userID, reportCount: row.reportCount, repeats: row.pending)
    }

    /// Marks users' pending repeats as not logged (an append that failed).
    mutating func markUnlogged(_ userIDs: some Sequence<UserID>) {
        for userID in userIDs {
            guard let index = rows.index(forKey: userID), !rows.values[index].unlogged else { continue }
            rows.values[index].unlogged = true
            unloggedUsers.append(userID)
        }
    }

    func hasPending(_ userID: UserID) -> Bool { rows[userID].map { !$0.pending.isEmpty } ?? false }

    /// The users that may have pending repeats; the list starts afresh. A caller that leaves
    /// some pending gives them back with `keepPending`.
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

    /// Forgets a user's row: their record changed otherwise. Their pending repeats must have
    /// been folded in (or the record is gone).
    mutating func remove(_ userID: UserID) {
        rows[userID] = nil
    }

    /// Forgets every row that has nothing pending; rows with pending repeats keep them for the
    /// fold but answer no more repeats (a new policy may reconcile their episodes differently).
    mutating func invalidateAll() {
        rows = rows.filter { !$0.value.pending.isEmpty }
        for index in rows.indices { rows.values[index].criterion = nil }
    }
}
