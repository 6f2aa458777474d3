import Logging
import PostgresNIO
import RemindCore
import RemindTesting
import Testing

@testable import RemindPostgres

/// The `bigint[]` reader the day sums are read with, against what the server sends: every
/// element in order, the empty array, and a refusal for what it does not read.
@Suite(.ownThread, .enabled(if: PostgresServer.isInstalled, "needs Debian's postgresql"))
struct BigintArrayTests {
    let logger = Logger(label: "test")

    @Test func readsWhatTheServerSends() async throws {
        let store = try StoreBackend.openPostgres(
            policy: ReminderPolicy(configuration: PolicyConfiguration()), sinks: ["file"],
            now: Fixtures.date("2026-11-15T10:00:00Z"))
        _ = try await store.record(Fixtures.userID("nobody"))
        let rows = try await store.client.query(
            """
            SELECT '{7,-1,9223372036854775807,0}'::int8[], '{}'::int8[],
                (SELECT array_agg(n) FROM generate_series(1, 5000) n)::int8[]
            """, logger: logger)
        var read: [(BigintArray, BigintArray, BigintArray)] = []
        for try await row in rows.decode((BigintArray, BigintArray, BigintArray).self) { read.append(row) }
        #expect(read.count == 1)
        #expect(read.first?.0.values == [7, -1, Int.max, 0])
        #expect(read.first?.1.values == [])
        #expect(read.first?.2.values == Array(1...5000))
        await #expect(throws: (any Error).self) {
            for try await _ in try await store.client.query("SELECT '{1,NULL}'::int8[]", logger: logger)
                .decode(BigintArray.self)
            {}
        }
        await #expect(throws: (any Error).self) {
            for try await _ in try await store.client.query("SELECT '{1,2}'::int4[]", logger: logger)
                .decode(BigintArray.self)
            {}
        }
        await store.close()
    }
}
