import Foundation
import RemindAPI
import RemindCore
import RemindStore
import Synchronization

/// The daemon's answers to repeated reports (`RepeatCacheShard`), sharded by user behind a
/// lock each, so that every event loop answers repeats at once, on its own thread, without a
/// task, an actor or a hop.
///
/// Only over a store this process alone writes (`UserStore.isSoleWriter`): with PostgreSQL
/// another instance may change a user, and a row here would answer from a record that is no
/// longer theirs. Whoever changes a record must say so: reports through `begin`/`end`
/// (``ReportRoutes``), everything else through `invalidate` (a fire pass's users, a forget, a
/// dead token) or `invalidateAll` (a new policy). Repeats reach the store through
/// `flush(into:)`, which the store's service runs before each checkpoint and before it closes.
public final class RepeatCache: Sendable {
    private final class Shard: Sendable {
        let state = Mutex(RepeatCacheShard())
    }

    private let shards: [Shard]
    let daemonStartedAt: Date

    /// A cache over `store`, nil when the store is shared.
    convenience init?(over store: any UserStore) {
        guard store.isSoleWriter else { return nil }
        self.init(daemonStartedAt: store.daemonStartedAt)
    }

    init(daemonStartedAt: Date, shards count: Int = 16) {
        precondition(count > 0 && count & (count - 1) == 0, "a power of two")
        self.daemonStartedAt = daemonStartedAt
        shards = (0..<count).map { _ in Shard() }
    }

    private func shardIndex(_ userID: UserID) -> Int { userID.hashValue & (shards.count - 1) }
    private func shard(_ userID: UserID) -> Shard { shards[shardIndex(userID)] }

    /// The user's status after `report` when it only repeats their state (noted, for the
    /// store); nil when the report must be stored.
    func answer(_ report: PermissionReport, of userID: UserID, receivedAt: Date) -> [UInt8]? {
        shard(userID).state.withLock { $0.answer(report, of: userID, receivedAt: receivedAt) }
    }

    /// A change of the user begins: until its `end`, their reports take the full path. Returns
    /// the repeats answered here that the change must fold in first.
    func begin(_ userID: UserID) -> LoggedRepeats? {
        shard(userID).state.withLock { $0.begin(userID) }
    }

    /// The change stored `record` under `policy`: the user's status, which from now on answers
    /// their repeats (once no other change of theirs is in progress). Rendered outside the lock.
    func end(_ userID: UserID, record: UserRecord, policy: ReminderPolicy) -> [UInt8]? {
        let template = UserStatus(record: record, policy: policy, daemonStartedAt: daemonStartedAt)
            .map(StatusTemplate.init)
        let row = template.map { template in
            RepeatCacheShard.Row(
                answering: RepeatCriterion(record, askDueAt: policy.nextAskAt(record)).map { ($0, template) },
                observedAt: template.observedAt,
                reportCount: record.reportCount, lastReportAt: record.lastReportAt)
        }
        shard(userID).state.withLock { $0.end(userID, .stored(row)) }
        return template?.bytes
    }

    /// The change failed (nothing was stored): the repeats `begin` gave it stay pending here.
    func fail(_ userID: UserID, restoring: LoggedRepeats?) {
        shard(userID).state.withLock { $0.end(userID, .failed(restoring)) }
    }

    /// Runs `body`, a change of the user's record other than a report (a dead token): no repeat
    /// of theirs is answered meanwhile, nor from the old record after; the repeats answered
    /// before stay pending.
    func changing<T>(_ userID: UserID, _ body: () async throws -> T) async rethrows -> T {
        let taken = begin(userID)
        invalidate(CollectionOfOne(userID))
        defer { fail(userID, restoring: taken) }
        return try await body()
    }

    /// A change of the user that leaves no status (a forget) ended.
    func endWithoutStatus(_ userID: UserID) {
        shard(userID).state.withLock { $0.end(userID, .stored(nil)) }
    }

    /// These users' records changed otherwise: their next report takes the full path.
    func invalidate(_ userIDs: some Collection<UserID>) {
        guard !userIDs.isEmpty else { return }
        var byShard: [Int: [UserID]] = [:]
        for userID in userIDs { byShard[shardIndex(userID), default: []].append(userID) }
        for (index, users) in byShard { shards[index].state.withLock { $0.invalidate(users) } }
    }

    /// A new policy: every user's next report takes the full path (it may reconcile their
    /// episodes differently).
    func invalidateAll() {
        for shard in shards { shard.state.withLock { $0.invalidateAll() } }
    }

    /// Hands the repeats answered since the last flush to the store (`UserStore.noteRepeats`).
    /// A store that refuses them (a database down) gets them again at the next flush.
    func flush(into store: any UserStore) async throws {
        try await hand(shards.flatMap { shard in shard.state.withLock { $0.takeUnflushed() } }, to: store)
    }

    /// Hands one user's repeats to the store: what a read of their record does first, so that
    /// it shows every report answered.
    func flush(_ userID: UserID, into store: any UserStore) async throws {
        guard let logged = shard(userID).state.withLock({ $0.takeUnflushed(of: userID) }) else { return }
        try await hand([logged], to: store)
    }

    private func hand(_ taken: [LoggedRepeats], to store: any UserStore) async throws {
        guard !taken.isEmpty else { return }
        do {
            try await store.noteRepeats(taken)
        } catch {
            for logged in taken { shard(logged.userID).state.withLock { $0.giveBack(logged) } }
            throw error
        }
    }

    var count: Int { shards.reduce(0) { total, shard in total + shard.state.withLock { $0.count } } }
}
