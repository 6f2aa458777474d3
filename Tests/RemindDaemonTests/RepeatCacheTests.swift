import Foundation
import RemindAPI
import RemindCore
import RemindStore
import RemindTesting
import Testing

@testable import RemindDaemon

/// The rules of the daemon's answers to repeats (`RepeatCache`) where changes, reads and
/// invalidations meet, over the reference store: a repeat is answered only from the newest
/// record and never while a change of the user is in progress, and no repeat answered is lost
/// or counted twice on its way to the store.
struct RepeatCacheTests {
    let start = Fixtures.date("2026-11-15T10:00:00Z")
    let userID = Fixtures.userID("cached")
    let policy = ReminderPolicy()

    func report(at offset: TimeInterval) -> PermissionReport {
        PermissionReport(
            location: .whileInUse, notifications: .authorized, observedAt: start.addingTimeInterval(offset))
    }

    func setUp() -> (MemoryStateStore, RepeatCache, ReportStorage) {
        let store = MemoryStateStore(sinks: [], policy: policy, now: start)
        let cache = RepeatCache(daemonStartedAt: start)
        return (store, cache, ReportStorage(store: store, repeats: cache))
    }

    /// The `reportCount` an answer shows.
    func reportCount(_ answer: [UInt8]?) throws -> Int? {
        guard let answer, case .object(let object) = try JSONParser.parse(answer),
            case .int(let count)? = object["reportCount"]
        else { return nil }
        return Int(count)
    }

    func repeated(_ cache: RepeatCache, at offset: TimeInterval) -> [UInt8]? {
        cache.answer(report(at: offset), of: userID, receivedAt: start.addingTimeInterval(offset))
    }

    /// A stored change's status answers the next repeat; while another change of the user is in
    /// progress nothing is answered from memory, and after it the count goes on from its record.
    @Test func aChangeInProgressTakesEveryReportTheFullWay() async throws {
        let (store, cache, storage) = setUp()
        let first = try await storage.store(report(at: 0), for: userID, receivedAt: start)
        #expect(try reportCount(first.answer) == 1)
        #expect(try reportCount(repeated(cache, at: 1)) == 2)
        let taken = try #require(cache.begin(userID))
        #expect(taken.repeats.count == 1 && taken.reportCount == 2)
        #expect(repeated(cache, at: 2) == nil)
        // The change folds the repeat in before its own report.
        let stored = try await store.storeReport(
            report(at: 3), for: userID, receivedAt: start.addingTimeInterval(3), after: taken.repeats)
        let status = cache.end(userID, record: stored.outcome.record, policy: policy)
        #expect(try reportCount(status) == 3)
        #expect(try reportCount(repeated(cache, at: 4)) == 4)
        try await cache.flush(into: store)
        #expect(await store.record(userID)?.reportCount == 4)
    }

    /// Two changes of one user overlap and end in the other order: the row is the newer
    /// record's, made only once both ended.
    @Test func overlappingChangesLeaveTheNewestRecordsRow() async throws {
        let (store, cache, storage) = setUp()
        _ = try await storage.store(report(at: 0), for: userID, receivedAt: start)
        _ = cache.begin(userID)
        _ = cache.begin(userID)
        let older = try await store.storeReport(report(at: 1), for: userID, receivedAt: start.addingTimeInterval(1))
        let newer = try await store.storeReport(report(at: 2), for: userID, receivedAt: start.addingTimeInterval(2))
        _ = cache.end(userID, record: newer.outcome.record, policy: policy)
        #expect(repeated(cache, at: 3) == nil)
        _ = cache.end(userID, record: older.outcome.record, policy: policy)
        #expect(try reportCount(repeated(cache, at: 3)) == 4)
    }

    /// A record changed otherwise (a fire, a forget, a dead token) while a report's change was
    /// in progress: its end makes no row, and the next report takes the full path.
    @Test func anInvalidationDuringAChangeLeavesNoRow() async throws {
        let (store, cache, storage) = setUp()
        _ = try await storage.store(report(at: 0), for: userID, receivedAt: start)
        _ = cache.begin(userID)
        cache.invalidate([userID])
        let stored = try await store.storeReport(report(at: 1), for: userID, receivedAt: start.addingTimeInterval(1))
        _ = cache.end(userID, record: stored.outcome.record, policy: policy)
        #expect(repeated(cache, at: 2) == nil)
        #expect(cache.count == 0)
    }

    /// A change the store refused gives the repeats it took back, and they reach the store
    /// once, with the count they were answered with.
    @Test func aFailedChangeGivesItsRepeatsBack() async throws {
        let (store, cache, storage) = setUp()
        _ = try await storage.store(report(at: 0), for: userID, receivedAt: start)
        for offset in 1...3 { #expect(repeated(cache, at: TimeInterval(offset)) != nil) }
        let taken = cache.begin(userID)
        #expect(taken?.repeats.count == 3)
        cache.fail(userID, restoring: taken)
        #expect(try reportCount(repeated(cache, at: 4)) == 5)
        try await cache.flush(into: store)
        try await cache.flush(into: store)
        let record = try #require(await store.record(userID))
        #expect(record.reportCount == 5 && record.lastReportAt == start.addingTimeInterval(4))
    }

    /// A new policy: no row answers any more, but the repeats answered before reach the store.
    @Test func aNewPolicyKeepsTheRepeatsAnswered() async throws {
        let (store, cache, storage) = setUp()
        _ = try await storage.store(report(at: 0), for: userID, receivedAt: start)
        #expect(repeated(cache, at: 1) != nil && repeated(cache, at: 2) != nil)
        cache.invalidateAll()
        #expect(repeated(cache, at: 3) == nil)
        try await cache.flush(userID, into: store)
        #expect(await store.record(userID)?.reportCount == 3)
        #expect(cache.count == 0)
    }

    /// A dead token reported through the push sinks' directory: the next repeat is stored
    /// (the status says unreachable from then), and the repeats before it are kept.
    @Test func aDeadTokenEndsTheAnswersFromMemory() async throws {
        let (store, cache, storage) = setUp()
        var withToken = report(at: 0)
        withToken.push = .set(PushAddress(service: .fcm, token: "token-1"))
        _ = try await storage.store(withToken, for: userID, receivedAt: start)
        var again = withToken
        again.observedAt = start.addingTimeInterval(1)
        #expect(cache.answer(again, of: userID, receivedAt: start.addingTimeInterval(1)) != nil)
        let directory = RepeatCachingDirectory(store: store, repeats: cache)
        try await directory.markUnreachable(userID, token: "token-1", reason: "Unregistered", at: start)
        again.observedAt = start.addingTimeInterval(2)
        #expect(cache.answer(again, of: userID, receivedAt: start.addingTimeInterval(2)) == nil)
        let stored = try await storage.store(again, for: userID, receivedAt: start.addingTimeInterval(2))
        #expect(String(decoding: try #require(stored.answer), as: UTF8.self).contains(#""reachable":false"#))
        #expect(try reportCount(stored.answer) == 3)
    }
}
