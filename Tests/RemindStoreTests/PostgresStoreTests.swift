import Foundation
import RemindCore
import RemindStore
import RemindTesting
import Synchronization
import Testing

@testable import RemindPostgres

/// What only the PostgreSQL backend has: documents that another hand wrote, and instances
/// that share one database.
@Suite(.ownThread, .enabled(if: PostgresServer.isInstalled, "needs Debian's postgresql"))
struct PostgresStoreTests {
    let start = Fixtures.date("2026-11-15T10:00:00Z")
    let policy = ReminderPolicy(
        configuration: PolicyConfiguration(notification: .init(notificationTriggerDelay: 60)))

    func report(_ store: any StateStore, _ user: String, _ location: LocationAuthorization) async throws {
        _ = try await store.storeReport(
            PermissionReport(location: location, observedAt: start), for: Fixtures.userID(user), receivedAt: start)
    }

    /// A document that does not decode stops neither the scheduler nor other users: the fire
    /// pass quarantines it and fires the rest, the user starts afresh at the next report, and
    /// the status counts it.
    @Test func undecodableDocumentIsQuarantined() async throws {
        let server = try PostgresServer.shared()
        let database = try server.createDatabase()
        let store = try StoreBackend.openPostgres(policy: policy, sinks: ["file"], now: start, database: database)
        try await report(store, "bad", .whileInUse)
        try await report(store, "good", .whileInUse)
        try server.psql(database, #"UPDATE remindd_users SET doc = '{"schema":99}' WHERE user_id = 'bad'"#)
        let fired = try await store.fireDue(now: start.addingTimeInterval(60))
        #expect(fired.events.map(\.userID) == [Fixtures.userID("good")])
        #expect(try await store.record(Fixtures.userID("bad")) == nil)
        #expect(try server.psql(database, "SELECT user_id FROM remindd_quarantine") == "bad\n")
        #expect(await store.statistics().quarantined == 1)
        try await report(store, "bad", .denied)
        #expect(try await store.record(Fixtures.userID("bad"))?.permissions?.location == .denied)
        await store.close()
    }

    /// Concurrent reports share transactions (group commit): every one is stored, a user's in
    /// arrival order, with one history entry per change; a row the server will not take (here
    /// a check of the test's own refuses a document with a NUL character, which validation
    /// lets no report carry) refuses only its own report, and the others of its batch stand.
    @Test func concurrentReportsAreGroupCommittedAndABadRowRefusesOnlyItself() async throws {
        let server = try PostgresServer.shared()
        let database = try server.createDatabase()
        let store = try StoreBackend.openPostgres(policy: policy, sinks: ["file"], now: start, database: database)
        try await report(store, "warm-up", .whileInUse)
        try Self.refuseNUL(server, database)
        let locations: [LocationAuthorization] = [.whileInUse, .denied, .always]
        let results = try await withThrowingTaskGroup(of: (Int, Bool).self) { group in
            for index in 0..<300 {
                group.addTask {
                    let user = Fixtures.userID(index == 150 ? "poison" : "u-\(index % 100)")
                    let at = self.start.addingTimeInterval(Double(index / 100 + 1))
                    let report = PermissionReport(
                        location: locations[index / 100], observedAt: at,
                        appVersion: index == 150 ? "1.0\u{0}" : nil)
                    do {
                        _ = try await store.storeReport(report, for: user, receivedAt: at)
                        return (index, true)
                    } catch {
                        return (index, false)
                    }
                }
            }
            return try await group.reduce(into: [Int: Bool]()) { $0[$1.0] = $1.1 }
        }
        #expect(results.filter { !$0.value }.map(\.key) == [150])
        for index in 0..<100 where index != 50 {
            let record = try #require(try await store.record(Fixtures.userID("u-\(index)")))
            #expect(record.reportCount == 3)
            #expect(record.history.count == 3)
        }
        #expect(try await store.record(Fixtures.userID("poison")) == nil)
        #expect(await store.statistics().users == 101)
        await store.close()
    }

    /// A row the server refuses: a document holding an escaped NUL character.
    static func refuseNUL(_ server: PostgresServer, _ database: String) throws {
        _ = try server.psql(
            database, #"ALTER TABLE remindd_users ADD CONSTRAINT test_no_nul CHECK (strpos(doc, '\u0000') = 0)"#)
    }

    /// A batch the server refuses for one row goes again user by user with the outcomes it
    /// decided: every change runs exactly once, the good users' changes (two of one user among
    /// them, in order) are stored, and only the poisoned user's change fails.
    @Test func refusedBatchRunsEachChangeOnce() async throws {
        let server = try PostgresServer.shared()
        let database = try server.createDatabase()
        let store = try StoreBackend.openPostgres(policy: policy, sinks: ["file"], now: start, database: database)
        try await report(store, "warm-up", .whileInUse)
        try Self.refuseNUL(server, database)
        let calls = Mutex([Int](repeating: 0, count: 4))
        let users = ["a", "poison", "a", "b"]
        let changes = users.enumerated().map { index, user in
            let report = PermissionReport(
                location: index == 2 ? .always : .whileInUse, observedAt: start.addingTimeInterval(Double(index)),
                appVersion: user == "poison" ? "1.0\u{0}" : nil)
            let userID = Fixtures.userID(user)
            let receivedAt = start.addingTimeInterval(Double(index))
            return UserChange(userID) { record, policy in
                calls.withLock { $0[index] += 1 }
                return policy.apply(report, to: record, userID: userID, receivedAt: receivedAt)
            }
        }
        let results = try await store.update(batch: changes)
        #expect(calls.withLock { $0 } == [1, 1, 1, 1])
        #expect(results.map { (try? $0.get()) != nil } == [true, false, true, true])
        let a = try #require(try await store.record(Fixtures.userID("a")))
        #expect(a.history.count == 2)
        #expect(a.permissions?.location == .always)
        #expect(try await store.record(Fixtures.userID("b")) != nil)
        #expect(try await store.record(Fixtures.userID("poison")) == nil)
        await store.close()
    }

    /// The counts of `/v1/status` come from counter rows each change moves in its transaction:
    /// after reports from two instances, fires, deletes, a quarantined document and a new
    /// policy's recompute, they equal what counting every row gives.
    @Test func counterRowsEqualCountingEveryRow() async throws {
        let server = try PostgresServer.shared()
        let database = try server.createDatabase()
        let a = try StoreBackend.openPostgres(policy: policy, sinks: ["file"], now: start, database: database)
        let b = try StoreBackend.openPostgres(policy: policy, sinks: ["file"], now: start, database: database)
        let locations: [LocationAuthorization] = [.whileInUse, .denied, .always, .notDetermined]
        let notifications: [NotificationAuthorization?] = [.authorized, .denied, nil]
        for index in 0..<240 {
            let at = start.addingTimeInterval(Double(index % 7))
            let report = PermissionReport(
                location: locations[index % 4], locationServices: index % 11 != 0,
                notifications: notifications[index % 3], observedAt: at)
            _ = try await (index % 2 == 0 ? a : b).storeReport(
                report, for: Fixtures.userID("u-\(index % 150)"), receivedAt: at)
        }
        _ = try await a.fireDue(now: start.addingTimeInterval(60), limit: 40)
        _ = try await b.fireDue(now: start.addingTimeInterval(60), limit: 1000)
        for index in stride(from: 0, to: 150, by: 13) {
            _ = try await b.delete(Fixtures.userID("u-\(index)"), at: start.addingTimeInterval(70))
        }
        try server.psql(database, #"UPDATE remindd_users SET doc = '{"schema":99}' WHERE user_id = 'u-1'"#)
        _ = try await a.record(Fixtures.userID("u-1"))
        try await report(a, "u-1", .denied)
        await a.setPolicy(
            ReminderPolicy(configuration: PolicyConfiguration(notification: .init(notificationTriggerDelay: 3600))))
        let fresh = try StoreBackend.openPostgres(policy: policy, sinks: ["file"], now: start, database: database)
        let counted = await fresh.statistics()
        let expected = try server.psql(
            database,
            "SELECT count(*), count(episode_started_at), count(reminder_at) FROM remindd_users"
        ).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect("\(counted.users)|\(counted.openEpisodes)|\(counted.pendingReminders)" == expected)
        let byConditions = try server.psql(
            database, "SELECT conditions || ':' || count(*) FROM remindd_users GROUP BY conditions ORDER BY conditions"
        ).split(separator: "\n").map(String.init)
        let combinations = (0..<ServiceConditions.combinations).map { UInt8($0) }.map(ServiceConditions.init(rawValue:))
        #expect(
            combinations.filter { counted.usersByConditions[$0] != 0 }.map {
                "\($0.rawValue):\(counted.usersByConditions[$0])"
            } == byConditions)
        #expect(counted.users > 100 && counted.pendingReminders > 0 && byConditions.count > 1)
        for store in [a, b, fresh] { await store.close() }
    }

    /// Two stores on one database fire each due user once between them, however their passes
    /// interleave: claims skip what the other holds.
    @Test func twoStoresFireEachUserOnce() async throws {
        let server = try PostgresServer.shared()
        let database = try server.createDatabase()
        let a = try StoreBackend.openPostgres(policy: policy, sinks: ["file"], now: start, database: database)
        let b = try StoreBackend.openPostgres(policy: policy, sinks: ["file"], now: start, database: database)
        for index in 0..<300 { try await report(index % 2 == 0 ? a : b, "u-\(index)", .whileInUse) }
        let due = start.addingTimeInterval(60)
        async let fromA = Self.fireAll(a, now: due)
        async let fromB = Self.fireAll(b, now: due)
        let ids = try await fromA + fromB
        #expect(ids.count == 300)
        #expect(Set(ids).count == 300)
        // And each event is claimed by one of them for the sink.
        async let claimedA = Self.claimAll(a)
        async let claimedB = Self.claimAll(b)
        let claimed = await claimedA + claimedB
        #expect(claimed.count == 300 && Set(claimed) == Set(ids))
        await a.close()
        await b.close()
    }

    /// A claim whose answer never reached a dispatcher (the request timed out after the server
    /// leased the event) is not renewed by its instance: the lease runs out and the event is
    /// claimed again, here by the same store, instead of staying leased for ever.
    @Test func leaseOfALostClaimRunsOut() async throws {
        let server = try PostgresServer.shared()
        let database = try server.createDatabase()
        let store = try StoreBackend.openPostgres(
            policy: policy, sinks: ["file"], now: start, database: database, leaseSeconds: 2, instance: "lost-claims")
        try await report(store, "a", .whileInUse)
        let fired = try await store.fireDue(now: start.addingTimeInterval(60))
        // As the server would have it after a claim whose answer was lost.
        try server.psql(
            database,
            "UPDATE remindd_outbox SET lease_owner = 'lost-claims', lease_until = now() + interval '2 seconds'")
        #expect(await store.claimEvent(for: "file") == nil)
        var again: OutboxEvent?
        // The lease is the server's clock: look every 100 ms until it is taken again. Renewed
        // every 0.7 s, it would never run out; the deadline is wide for the parallel suite.
        try await waitUntil("the lost claim taken again", within: .seconds(30), every: .milliseconds(100)) {
            again = await store.claimEvent(for: "file")
            return again != nil
        }
        #expect(again?.id == fired.events.first?.id, "renewed while nobody held it")
        await store.close()
    }

    /// Two stores starting together on a new database migrate it once between them: each
    /// version is recorded once, the outbox has its queue settings (migration 2) and the
    /// counter rows exist (migration 3).
    @Test func instancesStartingTogetherMigrateOnce() async throws {
        let server = try PostgresServer.shared()
        let database = try server.createDatabase()
        let a = try StoreBackend.openPostgres(policy: policy, sinks: ["file"], now: start, database: database)
        let b = try StoreBackend.openPostgres(policy: policy, sinks: ["file"], now: start, database: database)
        // A request waits until its store has connected and migrated.
        async let first = a.record(Fixtures.userID("nobody"))
        async let second = b.record(Fixtures.userID("nobody"))
        _ = try await (first, second)
        #expect(
            try server.psql(database, "SELECT version FROM remindd_schema ORDER BY version")
                == "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n")
        let settings = try server.psql(
            database, "SELECT array_to_string(reloptions, ',') FROM pg_class WHERE relname = 'remindd_outbox'")
        #expect(settings.contains("fillfactor=50") && settings.contains("autovacuum_vacuum_threshold=5000"))
        #expect(try server.psql(database, "SELECT sum(value) FROM remindd_counters WHERE name = 'users'") == "0\n")
        await a.close()
        await b.close()
    }

    /// A database from before the active-hour column (schema 7) is brought up to date in
    /// place: the column and its counters are filled from the documents as they are, and the
    /// counts then move with every change.
    @Test func theActiveHourColumnIsFilledFromTheDocuments() async throws {
        let server = try PostgresServer.shared()
        let database = try server.createDatabase()
        let active = ReminderPolicy(
            configuration: PolicyConfiguration(
                notification: .init(notificationTriggerDelay: 60, sendTime: .active(.init(minReports: 1)))))
        let store = try StoreBackend.openPostgres(policy: active, sinks: ["file"], now: start, database: database)
        for (user, hour) in [("a", 9.0), ("b", 9), ("c", 20)] {
            let at = start.addingTimeInterval((hour - 10) * 3_600)
            _ = try await store.storeReport(
                PermissionReport(location: .whileInUse, observedAt: at), for: Fixtures.userID(user), receivedAt: at)
        }
        var expected = [Int](repeating: 0, count: 24)
        expected[9] = 2
        expected[20] = 1
        #expect(await store.usersByActiveHour() == expected)
        await store.close()
        // As the release before it left the database.
        try server.psql(
            database,
            """
            ALTER TABLE remindd_users DROP COLUMN active_hour, DROP COLUMN platform, DROP COLUMN episode_marks,
                DROP COLUMN episode_opening;
            DROP TABLE remindd_funnel_days, remindd_history;
            DELETE FROM remindd_counters WHERE name LIKE 'active_hour:%';
            ALTER TABLE remindd_users ALTER COLUMN doc TYPE jsonb USING doc::jsonb;
            DELETE FROM remindd_schema WHERE version >= 8
            """)
        let upgraded = try StoreBackend.openPostgres(policy: active, sinks: ["file"], now: start, database: database)
        #expect(await upgraded.usersByActiveHour() == expected)
        #expect(try await upgraded.delete(Fixtures.userID("c"), at: start))
        expected[20] = 0
        #expect(await upgraded.usersByActiveHour() == expected)
        await upgraded.close()
    }

    /// More completions at once than one statement takes: all are deleted (in several
    /// statements), each caller returns, and every event counts as delivered once.
    @Test func completionsBeyondOneStatement() async throws {
        let server = try PostgresServer.shared()
        let database = try server.createDatabase()
        let store = try StoreBackend.openPostgres(policy: policy, sinks: ["file"], now: start, database: database)
        let count = PostgresStateStore.completionsPerStatement + 100
        _ = try await store.record(Fixtures.userID("nobody"))
        try Self.insertEvents(count, into: database, on: server)
        let claimed = await store.claimEvents(for: "file", limit: count + 1)
        #expect(claimed.count == count)
        await withTaskGroup(of: Void.self) { group in
            for event in claimed { group.addTask { await store.complete(event.id, sink: "file") } }
        }
        #expect(await store.pendingEvents(for: "file") == 0)
        #expect(await store.statistics().eventsDelivered == count)
        await store.close()
    }

    /// A claim of one, by a dispatcher that asked for four at once, leases four and keeps
    /// three for the next asks: another store takes the rest, not those; closing gives them
    /// back at once.
    @Test func claimsAheadForTheNextAsks() async throws {
        let server = try PostgresServer.shared()
        let database = try server.createDatabase()
        let a = try StoreBackend.openPostgres(policy: policy, sinks: ["file"], now: start, database: database)
        let b = try StoreBackend.openPostgres(policy: policy, sinks: ["file"], now: start, database: database)
        _ = try await a.record(Fixtures.userID("nobody"))
        try Self.insertEvents(12, into: database, on: server)
        #expect(await a.claimEvents(for: "file", limit: 4).map(\.id) == ["e-1", "e-2", "e-3", "e-4"])
        #expect(await a.claimEvent(for: "file")?.id == "e-5")
        let leased = "SELECT count(*) FROM remindd_outbox WHERE lease_owner IS NOT NULL"
        #expect(try server.psql(database, leased) == "8\n")
        #expect(await b.claimEvents(for: "file", limit: 10).map(\.id) == ["e-9", "e-10", "e-11", "e-12"])
        #expect(await a.claimEvents(for: "file", limit: 2).map(\.id) == ["e-6", "e-7"])
        await a.close()
        #expect(await b.claimEvents(for: "file", limit: 10).map(\.id) == ["e-8"])
        await b.close()
    }

    /// Claims cut short by the cancellation a stopping dispatcher gets leave nothing leased by
    /// nobody: whatever the server leased is held here and given back (by a release, or at
    /// close), never left to wait out its lease.
    @Test func cancelledClaimsLeaveNothingLeased() async throws {
        let server = try PostgresServer.shared()
        let database = try server.createDatabase()
        let store = try StoreBackend.openPostgres(policy: policy, sinks: ["file"], now: start, database: database)
        _ = try await store.record(Fixtures.userID("nobody"))
        try Self.insertEvents(2_000, into: database, on: server)
        for round in 0..<300 {
            let claim = Task { await store.claimEvents(for: "file", limit: 1 + round % 4) }
            for _ in 0..<(round % 9) { await Task.yield() }
            claim.cancel()
            for event in await claim.value { await store.release(event.id, sink: "file") }
        }
        await store.close()
        #expect(try server.psql(database, "SELECT count(*) FROM remindd_outbox WHERE lease_owner IS NOT NULL") == "0\n")
    }

    /// `count` claimable events `e-1`… of users `u-1`…, straight into the outbox.
    static func insertEvents(_ count: Int, into database: String, on server: PostgresServer) throws {
        try server.psql(
            database,
            """
            INSERT INTO remindd_outbox (event_id, sink, user_id, event)
            SELECT 'e-' || i, 'file', 'u-' || i,
                json_build_object('id', 'e-' || i, 'userID', 'u-' || i, 'type', 'reminder')::text
            FROM generate_series(1, \(count)) AS i
            """)
    }

    static func fireAll(_ store: any StateStore, now: Date) async throws -> [String] {
        var ids: [String] = []
        while true {
            let summary = try await store.fireDue(now: now, limit: 16)
            if summary.users == 0 { break }
            ids += summary.events.map(\.id)
        }
        return ids
    }

    static func claimAll(_ store: any StateStore) async -> [String] {
        var ids: [String] = []
        while true {
            let events = await store.claimEvents(for: "file", limit: 8)
            if events.isEmpty { break }
            ids += events.map(\.id)
        }
        return ids
    }
}
