import Foundation
import Logging
import NIOSSL
import PostgresNIO
import RemindCore
import RemindStore
import RemindTesting
import Testing

@testable import RemindPostgres

#if canImport(Glibc)
    import Glibc
#endif

/// The PostgreSQL store with its server gone: requests are answered at once, not after the
/// request timeout, and the store reconnects by itself. Each test has a server of its own.
@Suite(.ownThread, .enabled(if: PostgresServer.isInstalled, "needs Debian's postgresql"))
struct PostgresHealthTests {
    let start = Fixtures.date("2026-11-15T10:00:00Z")

    func report(_ store: any StateStore, _ user: String) async throws {
        _ = try await store.storeReport(
            PermissionReport(location: .whileInUse, observedAt: start), for: Fixtures.userID(user), receivedAt: start)
    }

    func open(_ server: PostgresServer, database: String) -> PostgresStateStore {
        let client = PostgresClient.Configuration(
            unixSocketPath: server.socketPath, username: "remindd", password: nil, database: database)
        var options = PostgresStateStore.Options(client: client, description: database, sinks: ["file"])
        // Wide, as the suite's: what is measured here must not come from the timeout.
        options.operationTimeout = .seconds(60)
        let store = PostgresStateStore(
            options: options, policy: ReminderPolicy(), now: start,
            logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
        store.startInBackground()
        return store
    }

    static func isUnavailable(_ error: any Error) -> Bool {
        (error as? StoreError)?.isUnavailable == true
    }

    /// Server stopped: each report is refused within 1 s; started again: reports are taken
    /// by the same store, and what was acknowledged before is there.
    @Test func reportsAreRefusedAtOnceUntilTheServerIsBack() async throws {
        let server = try PostgresServer()
        let store = open(server, database: try server.createDatabase())
        try await report(store, "before")
        server.stop()
        for attempt in 0..<3 {
            let asked = ContinuousClock.now
            await #expect(throws: StoreError.self) { try await report(store, "down-\(attempt)") }
            #expect(ContinuousClock.now - asked < .seconds(1), "attempt \(attempt)")
        }
        try server.start()
        try await waitUntil("a report taken again", within: .seconds(30), every: .milliseconds(50)) {
            (try? await report(store, "after")) != nil
        }
        #expect(try await store.record(Fixtures.userID("before")) != nil)
        await store.close()
    }

    /// A report waiting for a user's lock (held by another session) when the server stops is
    /// answered within 1 s of the stop, not at its deadline.
    @Test func aRequestInFlightIsAnsweredWhenTheServerStops() async throws {
        let server = try PostgresServer()
        let database = try server.createDatabase()
        let store = open(server, database: database)
        try await report(store, "warm")
        let null = try SpawnedProcess.openStream(nil, O_RDWR)
        defer { close(null) }
        let holder = try SpawnedProcess(
            executable: "/usr/bin/psql",
            arguments: [
                "-h", server.directory, "-U", "remindd", "-d", database, "-c",
                "SELECT pg_advisory_lock(hashtext('held')); SELECT pg_sleep(600)",
            ],
            environment: ProcessInfo.processInfo.environment, standardInput: null, standardOutput: null,
            standardError: null)
        defer { holder.stop() }
        try await waitUntil("the lock held", within: .seconds(30), every: .milliseconds(20)) {
            // The holder's lock, not the store's own presence lock.
            (try? server.psql(
                database,
                """
                SELECT count(*) FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
                WHERE l.locktype = 'advisory' AND l.granted AND a.query LIKE '%pg_sleep(600)%'
                """)) == "1\n"
        }
        let waiting = Task { try await report(store, "held") }
        try await waitUntil("the report waiting for the lock", within: .seconds(30), every: .milliseconds(20)) {
            (try? server.psql(database, "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted"))
                == "1\n"
        }
        let stopped = ContinuousClock.now
        // stop() returns when the server has exited, after its shutdown checkpoint, which may
        // take seconds on a busy machine: the answer is timed from the signal, not from then.
        let stopping = Thread { server.stop() }
        stopping.start()
        let outcome = await waiting.result
        #expect(ContinuousClock.now - stopped < .seconds(1))
        switch outcome {
        case .failure(let error):
            #expect(error is StoreError, "\(error)")
            await store.close()
        case .success:
            // The stop ended the holder's session first, and the report took the lock and
            // committed before its own session was ended: acknowledged, so it must be there.
            await store.close()
            try await waitUntil("the server stopped", within: .seconds(120), every: .milliseconds(50)) {
                !FileManager.default.fileExists(atPath: server.socketPath)
            }
            try server.start()
            let again = open(server, database: database)
            #expect(try await again.record(Fixtures.userID("held")) != nil)
            await again.close()
        }
    }

    /// The probe connects as the pool does, TLS mode included, which PostgresNIO keeps to
    /// itself: each mode is read back.
    @Test func theProbeUsesThePoolsTLSMode() {
        var settings = TLSConfiguration.makeClientConfiguration()
        settings.certificateVerification = .noHostnameVerification
        guard case .disable = PostgresStateStore.tlsMode(.disable) else {
            Issue.record("disable")
            return
        }
        guard case .prefer(let preferred) = PostgresStateStore.tlsMode(.prefer(settings)) else {
            Issue.record("prefer")
            return
        }
        #expect(preferred.certificateVerification == .noHostnameVerification)
        guard case .require(let required) = PostgresStateStore.tlsMode(.require(settings)) else {
            Issue.record("require")
            return
        }
        #expect(required.certificateVerification == .noHostnameVerification)
    }
}
