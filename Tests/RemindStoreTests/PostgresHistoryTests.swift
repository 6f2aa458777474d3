import Foundation
import RemindCore
import RemindStore
import RemindTesting
import Testing

@testable import RemindPostgres

/// On PostgreSQL a user's document keeps the newest history entry and `remindd_history` the
/// older ones, a row each, inserted and deleted but never updated (`OlderHistory`).
@Suite(.ownThread)
struct PostgresHistoryTests {
    static let start = Fixtures.date("2026-11-15T10:00:00Z")

    static func entry(_ seconds: Double, _ location: LocationAuthorization = .whileInUse) -> HistoryEntry {
        let at = start.addingTimeInterval(seconds)
        return HistoryEntry(
            observedAt: at, receivedAt: at,
            permissions: Permissions(
                location: location, notifications: .authorized))
    }

    // MARK: - The rows a change writes

    @Test func aReportInsertsTheEntryItPushedDown() {
        let (a, b, c) = (Self.entry(3), Self.entry(2), Self.entry(1))
        let older = OlderHistory(entries: [b, c], positions: [7, 6])
        let change = older.change(to: [a, b, c][...])
        #expect(change.deleted.isEmpty)
        #expect(change.inserted.map(\.position) == [8])
        #expect(change.inserted.map(\.entry) == [a])
    }

    @Test func aRepeatWritesNoRow() {
        let (b, c) = (Self.entry(2), Self.entry(1))
        let change = OlderHistory(entries: [b, c], positions: [2, 1]).change(to: [b, c][...])
        #expect(change.deleted.isEmpty && change.inserted.isEmpty)
    }

    /// Past `historyMaxEntries` the oldest rows go.
    @Test func theOldestEntriesPastTheLengthAreDeleted() {
        let entries = (1...5).map { Self.entry(Double($0)) }.reversed() as [HistoryEntry]
        let older = OlderHistory(entries: entries, positions: [10, 9, 8, 7, 6])
        let newer = [Self.entry(9), Self.entry(8)] + entries.prefix(3)
        let change = older.change(to: newer[...])
        #expect(change.inserted.map(\.position) == [12, 11])
        #expect(change.inserted.map(\.entry) == [Self.entry(9), Self.entry(8)])
        #expect(change.deleted == [7, 6], "the rows of the two oldest")
    }

    /// A report observed before the newest entries is placed among them: the rows after it
    /// are kept, those before it written again above the highest position (positions have
    /// gaps then, which the next change does not mind).
    @Test func anEntryPlacedAmongTheOlderOnes() {
        let (a, b, c, d) = (Self.entry(4), Self.entry(3), Self.entry(2), Self.entry(1))
        let late = Self.entry(2.5, .always)
        let older = OlderHistory(entries: [b, c, d], positions: [3, 2, 1])
        let change = older.change(to: [a, b, late, c, d][...])
        #expect(change.deleted == [3], "b, above the entry placed among them, is written again")
        #expect(change.inserted.map(\.entry) == [a, b, late])
        #expect(change.inserted.map(\.position) == [6, 5, 4])
        let next = OlderHistory(entries: [b, late, c, d], positions: [5, 4, 2, 1]).change(to: [a, b, late, c][...])
        #expect(next.deleted == [1] && next.inserted.map(\.position) == [6])
    }

    @Test func aHistoryRewrittenReplacesEveryRow() {
        let (a, b, c) = (Self.entry(3), Self.entry(2), Self.entry(1))
        let older = OlderHistory(entries: [b, c], positions: [9, 4])
        let change = older.change(to: [a, Self.entry(2, .denied)][...])
        #expect(change.deleted == [9, 4])
        #expect(change.inserted.map(\.position) == [11, 10])
    }

    // MARK: - Against a server

    /// Random reports (some observed before the newest, some repeating), bulk requests and
    /// fire passes through PostgreSQL and through the memory backend reach the same records,
    /// byte for byte, read one by one and listed; the document keeps one history entry and
    /// the table a row for each of the rest; no row of the table is ever updated (a
    /// trigger of the test's own refuses it).
    @Test(
        .enabled(if: PostgresServer.isInstalled, "needs Debian's postgresql"),
        arguments: [0x4157_0001, 0x4157_0002, 0x4157_0003] as [UInt64])
    func postgresKeepsTheRecordsTheMemoryBackendKeeps(seed: UInt64) async throws {
        var rng = SplitMix64(seed: seed)
        let policy = ReminderPolicy(
            configuration: PolicyConfiguration(
                notification: LocationNotificationConfiguration(
                    showRecurringNotification: true, notificationTriggerDelay: 600),
                historyMaxEntries: rng.int(2...9)))
        let server = try PostgresServer.shared()
        let database = try server.createDatabase()
        let postgres = try StoreBackend.openPostgres(
            policy: policy, sinks: ["file"], now: Self.start, database: database)
        _ = try await postgres.record(Fixtures.userID("nobody"))  // migrated
        try server.psql(
            database,
            """
            CREATE FUNCTION test_refuse_update() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN RAISE EXCEPTION 'remindd_history is insert-only'; END $$;
            CREATE TRIGGER test_insert_only BEFORE UPDATE ON remindd_history
                FOR EACH ROW EXECUTE FUNCTION test_refuse_update()
            """)
        let memory = MemoryStateStore(sinks: ["file"], policy: policy, now: Self.start)
        let users = (0..<4).map { Fixtures.userID("h\(seed % 1000)-\($0)") }
        var clock = Self.start
        for _ in 0..<60 {
            clock += TimeInterval(rng.int(1...900))
            let batch = (0..<(rng.chance(0.3) ? rng.int(2...5) : 1)).map { index in
                // Now and then observed before the newest entries, which the policy places
                // among the older ones.
                let observed = clock - (rng.chance(0.15) ? TimeInterval(rng.int(60...3600)) : -TimeInterval(index))
                return (report: DeltaLogPropertyTests.report(&rng, at: observed), userID: rng.element(users))
            }
            for store in [postgres, memory] as [any StateStore] {
                if batch.count == 1 {
                    _ = try await store.storeReport(batch[0].report, for: batch[0].userID, receivedAt: clock)
                } else {
                    for result in try await store.storeReports(batch, receivedAt: clock) { _ = try result.get() }
                }
            }
            if rng.chance(0.2) {
                let fired = try await postgres.fireDue(now: clock)
                let expected = try await memory.fireDue(now: clock)
                #expect(fired.events.map(\.id).sorted() == expected.events.map(\.id).sorted())
            }
        }
        for userID in users {
            let stored = try await postgres.record(userID)
            let expected = try await memory.record(userID)
            #expect(stored?.jsonBytes == expected?.jsonBytes, "seed \(seed), \(userID)")
            let count = expected?.history.count ?? 0
            #expect(
                try server.psql(
                    database,
                    """
                    SELECT jsonb_array_length(u.doc::jsonb -> 'history'), count(h.pos)
                    FROM remindd_users u LEFT JOIN remindd_history h USING (user_id)
                    WHERE u.user_id = '\(userID.rawValue)' GROUP BY u.doc
                    """) == "1|\(count - 1)\n", "seed \(seed), \(userID): one entry in the document")
        }
        let listed = try await postgres.users(after: nil, limit: 10)
        #expect(listed.map(\.jsonBytes) == (try await memory.users(after: nil, limit: 10)).map(\.jsonBytes))
        // A forgotten user's rows go with them.
        #expect(try await postgres.delete(users[0], at: clock))
        #expect(
            try server.psql(database, "SELECT count(*) FROM remindd_history WHERE user_id = '\(users[0].rawValue)'")
                == "0\n")
        await postgres.close()
    }

    /// A database of the release before (each document with its whole history) is split in
    /// place at start: every record reads as it did, the documents keep one entry, and a
    /// document that is not JSON stays as it was, to be quarantined at its next read.
    @Test(.enabled(if: PostgresServer.isInstalled, "needs Debian's postgresql"))
    func documentsOfTheReleaseBeforeAreSplitInPlace() async throws {
        let policy = ReminderPolicy(configuration: PolicyConfiguration(historyMaxEntries: 5))
        let server = try PostgresServer.shared()
        let database = try server.createDatabase()
        let store = try StoreBackend.openPostgres(policy: policy, sinks: ["file"], now: Self.start, database: database)
        let locations: [LocationAuthorization] = [.whileInUse, .always, .denied]
        for step in 0..<8 {
            for user in ["a", "b"] where user == "a" || step < 2 {
                let at = Self.start.addingTimeInterval(Double(step) * 60)
                _ = try await store.storeReport(
                    PermissionReport(location: locations[step % 3], observedAt: at), for: Fixtures.userID(user),
                    receivedAt: at)
            }
        }
        let before = try await store.users(after: nil, limit: 10)
        #expect(before.map(\.history.count) == [5, 2])
        await store.close()
        // As the release before left the database: whole documents, no history table.
        try server.psql(
            database,
            """
            UPDATE remindd_users u SET doc = jsonb_set(u.doc::jsonb, '{history}', (u.doc::jsonb -> 'history')
                || coalesce((SELECT jsonb_agg(h.entry::jsonb ORDER BY h.pos DESC) FROM remindd_history h
                    WHERE h.user_id = u.user_id), '[]'))::text;
            DROP TABLE remindd_history;
            DELETE FROM remindd_schema WHERE version >= 11;
            INSERT INTO remindd_users (user_id, doc, next_sequence, conditions) VALUES ('edited', '{"history": [', 1, 0);
            """)
        #expect(
            try server.psql(
                database, "SELECT jsonb_array_length(doc::jsonb -> 'history') FROM remindd_users WHERE user_id = 'a'")
                == "5\n")
        let upgraded = try StoreBackend.openPostgres(
            policy: policy, sinks: ["file"], now: Self.start, database: database)
        #expect(try await upgraded.record(Fixtures.userID("a")) == before[0])
        #expect(try await upgraded.record(Fixtures.userID("b")) == before[1])
        #expect(
            try server.psql(
                database,
                "SELECT user_id, count(*), min(pos), max(pos) FROM remindd_history GROUP BY user_id ORDER BY 1")
                == "a|4|1|4\nb|1|1|1\n")
        #expect(try await upgraded.record(Fixtures.userID("edited")) == nil)
        // The next change of a split user writes its rows as any other's.
        let at = Self.start.addingTimeInterval(3600)
        _ = try await upgraded.storeReport(
            PermissionReport(location: .whileInUse, observedAt: at), for: Fixtures.userID("a"), receivedAt: at)
        #expect(
            try await upgraded.record(Fixtures.userID("a"))?.history.dropFirst().elementsEqual(
                before[0].history.prefix(4)) == true)
        #expect(
            try server.psql(database, "SELECT min(pos), max(pos) FROM remindd_history WHERE user_id = 'a'") == "2|5\n")
        await upgraded.close()
    }
}
