import Foundation
import RemindAPI
import RemindCore

/// What answers a repeated report from memory (issue 17): for each user who reported since
/// start, the `RepeatBasis` of their record, their status as a `StatusTemplate`, the three
/// values a repeat moves, and the repeats not yet folded into the record.
///
/// A repeat costs a dictionary lookup, a comparison and a splice of the cached answer: no
/// record is read or decoded, no file or log written. Its counters reach the user file at the
/// next checkpoint (`FileStateStore.foldRepeats`); a crash before it loses those repeats'
/// `reportCount` and `lastReportAt` (and observation times, `platform` and `appVersion`), which
/// the `StateStore` contract allows, and never a change.
///
/// Rows are made from records a report was just applied to, so they agree with the current
/// policy; anything else that changes a record (a fire, a delete, a dead token, a new policy)
/// drops the row, and the user's next report takes the full path again.
struct RepeatBook {
    struct Row {
        /// Nil once a new policy came: the row then only keeps its pending repeats for the fold.
        var basis: RepeatBasis?
        var template: StatusTemplate
        var observedAt: Date
        var reportCount: Int
        var lastReportAt: Date
        var pending = RepeatedReports()
    }

    private var rows: [UserID: Row] = [:]
    /// Users whose row gained pending repeats since the last fold (may repeat, may be stale).
    private var pendingUsers: [UserID] = []

    var count: Int { rows.count }

    /// Answers `report` from memory when it only repeats the user's state: notes it as
    /// pending and returns the encoded status and the new `lastReportAt`. Nil when it does
    /// not (or the user has no row): the report takes the full path.
    mutating func answer(
        _ report: PermissionReport, of userID: UserID, receivedAt: Date
    ) -> (status: [UInt8], lastReportAt: Date)? {
        guard let index = rows.index(forKey: userID), rows.values[index].basis?.isRepeat(report) == true else {
            return nil
        }
        if rows.values[index].pending.isEmpty { pendingUsers.append(userID) }
        // In place: the row's arrays are not copied.
        return Self.note(report, receivedAt: receivedAt, in: &rows.values[index])
    }

    private static func note(
        _ report: PermissionReport, receivedAt: Date, in row: inout Row
    ) -> (status: [UInt8], lastReportAt: Date) {
        row.pending.add(report, receivedAt: receivedAt)
        row.reportCount += 1
        row.lastReportAt = max(row.lastReportAt, receivedAt.millisecondPrecision)
        if report.observedAt > row.observedAt { row.observedAt = report.observedAt }
        let status = row.template.render(
            observedAt: row.observedAt, reportCount: row.reportCount, lastReportAt: row.lastReportAt)
        return (status, row.lastReportAt)
    }

    /// A row for a record a report was just applied to (pending repeats must have been folded
    /// in); returns the encoded status. Without a basis the user has no row.
    mutating func refresh(_ record: UserRecord, policy: ReminderPolicy, daemonStartedAt: Date) -> [UInt8]? {
        guard let status = UserStatus(record: record, policy: policy, daemonStartedAt: daemonStartedAt) else {
            rows[record.userID] = nil
            return nil
        }
        let bytes = status.jsonBytes
        if let basis = RepeatBasis(record) {
            rows[record.userID] = Row(
                basis: basis, template: StatusTemplate(status), observedAt: status.observedAt,
                reportCount: record.reportCount, lastReportAt: record.lastReportAt)
        } else {
            rows[record.userID] = nil
        }
        return bytes
    }

    /// Takes the user's pending repeats, to fold them into the record; the row stays.
    mutating func takePending(_ userID: UserID) -> RepeatedReports? {
        guard let pending = rows[userID]?.pending, !pending.isEmpty else { return nil }
        rows[userID]!.pending = RepeatedReports()
        return pending
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

    /// Forgets a user's row: their record changed otherwise. Their pending repeats must have
    /// been folded in (or the record is gone).
    mutating func remove(_ userID: UserID) {
        rows[userID] = nil
    }

    /// Forgets every row that has nothing pending; rows with pending repeats keep them for the
    /// fold but answer no more repeats (a new policy may reconcile their episodes differently).
    mutating func invalidateAll() {
        rows = rows.filter { !$0.value.pending.isEmpty }
        for index in rows.indices { rows.values[index].basis = nil }
    }
}
