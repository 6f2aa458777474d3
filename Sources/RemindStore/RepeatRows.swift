import Foundation
import RemindCore
import Synchronization

/// The files backend's repeat rows (`RepeatRowShard`), sharded by user behind a lock each, so that
/// both cores answer repeats at once and neither waits for the store's actor.
public final class RepeatRows: RepeatAnswering {
    private final class Shard: Sendable {
        let rows = Mutex(RepeatRowShard())
    }

    private let shards: [Shard]

    init(shards count: Int = 16) {
        precondition(count > 0 && count & (count - 1) == 0, "a power of two")
        shards = (0..<count).map { _ in Shard() }
    }

    private func shardIndex(_ userID: UserID) -> Int { userID.hashValue & (shards.count - 1) }
    private func shard(_ userID: UserID) -> Shard { shards[shardIndex(userID)] }

    /// Runs `body` once per shard with that shard's users among `userIDs`, in their order.
    private func withShards(of userIDs: [UserID], _ body: (inout RepeatRowShard, [UserID]) -> Void) {
        var byShard: [Int: [UserID]] = [:]
        for userID in userIDs { byShard[shardIndex(userID), default: []].append(userID) }
        for (index, users) in byShard { shards[index].rows.withLock { body(&$0, users) } }
    }

    public func answerRepeat(_ report: PermissionReport, of userID: UserID, receivedAt: Date) -> [UInt8]? {
        shard(userID).rows.withLock { $0.answer(report, of: userID, receivedAt: receivedAt) }
    }

    /// A row for a record a report was just applied to (its pending repeats folded in), rendered
    /// by `rendering`; returns the rendered status. The rendering is done outside the lock.
    /// Without a rendering (or for a record without status) the user has no row.
    func refresh(
        _ record: UserRecord, rendering: (any StatusRendering)?, policy: ReminderPolicy, daemonStartedAt: Date
    ) -> [UInt8]? {
        guard let template = rendering?.template(for: record, policy: policy, daemonStartedAt: daemonStartedAt)
        else {
            remove(record.userID)
            return nil
        }
        guard let criterion = RepeatCriterion(record) else {
            remove(record.userID)
            return template.bytes
        }
        let row = RepeatRowShard.Row(
            criterion: criterion, template: template, observedAt: template.observedAt,
            reportCount: record.reportCount, lastReportAt: record.lastReportAt)
        shard(record.userID).rows.withLock { $0.set(row, of: record.userID) }
        return template.bytes
    }

    /// Marks a user owned by the store (no repeat is answered here meanwhile), or no longer.
    func setBusy(_ userID: UserID, _ isBusy: Bool) {
        shard(userID).rows.withLock { $0.setBusy(userID, isBusy) }
    }

    func takePending(_ userID: UserID) -> PendingRepeats? {
        shard(userID).rows.withLock { $0.takePending(userID) }
    }

    /// Puts back repeats taken for a fold that failed (the user was owned meanwhile).
    func restorePending(_ pending: PendingRepeats, of userID: UserID) {
        shard(userID).rows.withLock { $0.restorePending(pending, of: userID) }
    }

    func hasPending(_ userID: UserID) -> Bool {
        shard(userID).rows.withLock { $0.hasPending(userID) }
    }

    /// Users that may have pending repeats, from every shard; each list starts afresh.
    func takePendingUsers() -> [UserID] {
        shards.flatMap { shard in shard.rows.withLock { $0.takePendingUsers() } }
    }

    /// Users' pending repeats gained since they were last logged, from every shard; they now
    /// count as logged.
    func takeUnlogged() -> [LoggedRepeats] {
        shards.flatMap { shard in shard.rows.withLock { $0.takeUnlogged() } }
    }

    /// Every user's pending repeats; they all count as logged.
    func takeAllPending() -> [LoggedRepeats] {
        shards.flatMap { shard in shard.rows.withLock { $0.takeAllPending() } }
    }

    /// Counts users' pending repeats as not logged again (the append failed).
    func markUnlogged(_ userIDs: [UserID]) {
        withShards(of: userIDs) { rows, users in rows.markUnlogged(users) }
    }

    /// Gives back users a fold did not reach, ahead of the others (oldest first).
    func returnPending(_ userIDs: [UserID]) {
        withShards(of: userIDs) { rows, users in rows.returnPending(users) }
    }

    /// Gives back users whose repeats were left pending.
    func keepPending(_ userIDs: [UserID]) {
        withShards(of: userIDs) { rows, users in rows.keepPending(users) }
    }

    func remove(_ userID: UserID) {
        shard(userID).rows.withLock { $0.remove(userID) }
    }

    func invalidateAll() {
        for shard in shards { shard.rows.withLock { $0.invalidateAll() } }
    }

    var count: Int { shards.reduce(0) { total, shard in total + shard.rows.withLock { $0.count } } }
}
