import Foundation
import Logging
import PostgresNIO
import RemindCore
import RemindStore
import RemindTesting
import Testing

@testable import RemindPostgres

/// Statements that compete with others: outbox statements locking several rows against a
/// transaction of the test's own that holds some of them (a renewal does not wait, a
/// completion that a deadlock aborts is tried again instead of leaving its events to go
/// twice), and a statement this instance stopped waiting for, which the server stops too.
@Suite(.ownThread, .enabled(if: PostgresServer.isInstalled, "needs Debian's postgresql"))
struct PostgresContentionTests {
    let start = Fixtures.date("2026-11-15T10:00:00Z")
    let policy = ReminderPolicy(
        configuration: PolicyConfiguration(notification: .init(notificationTriggerDelay: 60)))
    let logger = Logger(label: "test")

    /// A store holding events `e-1` and `e-2`, claimed by it.
    func storeHoldingTwoEvents(in database: String, on server: PostgresServer) async throws -> PostgresStateStore {
        let store = try StoreBackend.openPostgres(policy: policy, sinks: ["file"], now: start, database: database)
        _ = try await store.record(Fixtures.userID("nobody"))
        try PostgresStoreTests.insertEvents(2, into: database, on: server)
        #expect(await store.claimEvents(for: "file", limit: 2).map(\.id) == ["e-1", "e-2"])
        return store
    }

    /// A renewal passes over a held row another transaction has locked (a completion deleting
    /// it) and renews the rest at once: waiting for it is how a renewal and a completion
    /// deadlocked under load.
    @Test func leaseRenewalPassesOverLockedRows() async throws {
        let server = try PostgresServer.shared()
        let database = try server.createDatabase()
        let store = try await storeHoldingTwoEvents(in: database, on: server)
        try server.psql(database, "UPDATE remindd_outbox SET lease_until = now() + interval '5 seconds'")
        let (locked, lockedNow) = AsyncStream<Void>.makeStream()
        let (end, endNow) = AsyncStream<Void>.makeStream()
        let holder = Task {
            try await store.client.withTransaction(logger: logger) { connection in
                try await connection.query(
                    "SELECT 1 FROM remindd_outbox WHERE event_id = 'e-1' FOR UPDATE", logger: logger)
                lockedNow.yield()
                for await _ in end { break }
            }
        }
        for await _ in locked { break }
        try await withTimeout(.seconds(20)) { await store.renewLeases() }
        let renewed = "SELECT event_id, lease_until > now() + interval '20 seconds' FROM remindd_outbox ORDER BY seq"
        #expect(try server.psql(database, renewed) == "e-1|f\ne-2|t\n")
        endNow.yield()
        try await holder.value
        await store.close()
    }

    /// The test's transaction locks `e-2`, the completion of both locks `e-1` and waits for
    /// `e-2`, the test's transaction then asks for `e-1`: a deadlock, which the server breaks
    /// by aborting the completion (it waited first, and the test's transaction waits longer
    /// before it looks). The completion is tried again, and deletes both once the test's
    /// transaction ends.
    @Test func completionAbortedByADeadlockIsTriedAgain() async throws {
        let server = try PostgresServer.shared()
        let database = try server.createDatabase()
        // Time for the test's transaction to join the cycle before the completion looks for one.
        try server.psql("postgres", "ALTER DATABASE \(database) SET deadlock_timeout = '5s'")
        let store = try await storeHoldingTwoEvents(in: database, on: server)
        let (locked, lockedNow) = AsyncStream<Void>.makeStream()
        let holder = Task {
            try await store.client.withTransaction(logger: logger) { connection in
                try await connection.query("SET LOCAL deadlock_timeout = '60s'", logger: logger)
                try await connection.query(
                    "SELECT 1 FROM remindd_outbox WHERE event_id = 'e-2' FOR UPDATE", logger: logger)
                lockedNow.yield()
                try await waitUntil("the completion to wait for e-2", within: .seconds(20), every: .milliseconds(10)) {
                    let waiting = try await connection.query(
                        "SELECT count(*) FROM pg_locks WHERE NOT granted", logger: logger)
                    for try await count in waiting.decode(Int.self) { return count > 0 }
                    return false
                }
                try await connection.query(
                    "SELECT 1 FROM remindd_outbox WHERE event_id = 'e-1' FOR UPDATE", logger: logger)
            }
        }
        for await _ in locked { break }
        let keys = ["e-1", "e-2"].map { PostgresStateStore.HeldEvent(eventID: $0, sink: "file") }
        async let deleted = store.deleteCompleted(keys)
        try await holder.value
        #expect(try await deleted == 2)
        #expect(try server.psql(database, "SELECT count(*) FROM remindd_outbox") == "0\n")
        await store.close()
    }

    /// A transaction given up on after its timeout is cancelled by the server as well: left
    /// running, its snapshot held back vacuum and its work competed with the retry.
    @Test func statementGivenUpOnStopsOnTheServer() async throws {
        let server = try PostgresServer.shared()
        let database = try server.createDatabase()
        let store = try StoreBackend.openPostgres(policy: policy, sinks: ["file"], now: start, database: database)
        _ = try await store.record(Fixtures.userID("nobody"))
        // The rows are read in the transaction: whichever side stops first (this one's timer,
        // or the server's statement timeout, whose error comes with the rows), it fails.
        await #expect(throws: StoreError.self) {
            try await store.transaction(timeout: .seconds(1)) { connection in
                for try await _ in try await connection.query("SELECT pg_sleep(60)", logger: logger) {}
            }
        }
        // Neither is taken for a lost connection.
        #expect(!store.health.withLock { $0.isDown })
        let sleeping = "SELECT count(*) FROM pg_stat_activity WHERE query LIKE 'SELECT pg_sleep(60)%'"
        try await waitUntil("the server to stop the statement", within: .seconds(20), every: .milliseconds(50)) {
            try server.psql(database, sleeping) == "0\n"
        }
        await store.close()
    }
}
