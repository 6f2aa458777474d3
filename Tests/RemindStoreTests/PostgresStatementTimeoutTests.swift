import Foundation
import Logging
import PostgresNIO
import RemindCore
import RemindStore
import RemindTesting
import Synchronization
import Testing

@testable import RemindPostgres

/// The server stops any statement of this instance's at its operation timeout, a startup
/// parameter of every connection (no round trip per transaction), and the operations meant
/// to wait longer raise it for themselves: the schema migration and the due times' recompute
/// wait for another instance's lock as long as it holds it.
@Suite(.ownThread, .enabled(if: PostgresServer.isInstalled, "needs Debian's postgresql"))
struct PostgresStatementTimeoutTests {
    let start = Fixtures.date("2026-11-15T10:00:00Z")
    let logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })

    /// What the store said while it waited for the database.
    final class Reasons: Sendable {
        let list = Mutex<[String]>([])
    }

    func open(
        _ server: PostgresServer, database: String, timeout: Duration, waiting: Reasons
    ) -> PostgresStateStore {
        let client = PostgresClient.Configuration(
            unixSocketPath: server.socketPath, username: "remindd", password: nil, database: database)
        var options = PostgresStateStore.Options(client: client, description: database, sinks: ["file"])
        options.operationTimeout = timeout
        let store = PostgresStateStore(
            options: options, policy: ReminderPolicy(), now: start, logger: logger,
            onWaiting: { reason in waiting.list.withLock { $0.append(reason) } })
        store.startInBackground()
        return store
    }

    @Test func everyConnectionStartsWithTheOperationTimeout() async throws {
        let server = try PostgresServer.shared()
        let waiting = Reasons()
        let store = open(server, database: try server.createDatabase(), timeout: .milliseconds(1500), waiting: waiting)
        _ = try await store.storeReport(
            PermissionReport(location: .whileInUse, observedAt: start), for: Fixtures.userID("t"), receivedAt: start)
        var shown: [String] = []
        for try await value in try await store.client.query("SHOW statement_timeout", logger: logger).decode(
            String.self)
        {
            shown.append(value)
        }
        #expect(shown == ["1500ms"])
        // A statement past it is stopped by the server, not left running there.
        let asked = ContinuousClock.now
        await #expect(throws: (any Error).self) {
            for try await _ in try await store.client.query("SELECT pg_sleep(30)", logger: logger) {}
        }
        #expect(ContinuousClock.now - asked < .seconds(10))
        await store.close()
    }

    /// Another instance holds the migration's or the recompute's lock for three times the
    /// operation timeout: this one waits for it and starts, without a failed attempt.
    @Test(arguments: [PostgresSchema.migrationLock, PostgresSchema.recomputeLock])
    func theLongOperationsWaitBeyondIt(lock: Int32) async throws {
        let server = try PostgresServer.shared()
        let database = try server.createDatabase()
        let holder = try await PostgresConnection.connect(
            configuration: .init(
                unixSocketPath: server.socketPath, username: "remindd", password: nil, database: database),
            id: 1, logger: logger)
        // A connection must be closed before it goes, whatever the test found.
        let store: PostgresStateStore
        do {
            try await holder.query("SELECT pg_advisory_lock(\(PostgresSchema.lockSpace), \(lock))", logger: logger)
            let waiting = Reasons()
            store = open(server, database: database, timeout: .milliseconds(500), waiting: waiting)
            // It has waited for the lock three times its timeout...
            try await waitUntil("a wait of 1.5 s for the lock", within: .seconds(30), every: .milliseconds(50)) {
                var waited = 0
                for try await count in try await holder.query(
                    """
                    SELECT count(*)::int FROM pg_stat_activity WHERE datname = \(database)
                    AND wait_event_type = 'Lock' AND now() - query_start > interval '1.5 seconds'
                    """, logger: logger
                ).decode(Int.self) {
                    waited = count
                }
                return waited > 0
            }
            // ...and no attempt was given up on meanwhile.
            #expect(waiting.list.withLock { $0 }.isEmpty)
            try await holder.query("SELECT pg_advisory_unlock_all()", logger: logger)
            try await waitUntil("the store ready", within: .seconds(30), every: .milliseconds(50)) {
                (try? await store.storeReport(
                    PermissionReport(location: .whileInUse, observedAt: start), for: Fixtures.userID("t"),
                    receivedAt: start)) != nil
            }
            #expect(waiting.list.withLock { $0 }.isEmpty, "\(waiting.list.withLock { $0 })")
        } catch {
            try await holder.close()
            throw error
        }
        try await holder.close()
        await store.close()
    }
}
