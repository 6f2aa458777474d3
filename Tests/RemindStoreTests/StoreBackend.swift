import Foundation
import Logging
import PostgresNIO
import RemindCore
import RemindPostgres
import RemindStore
import RemindTesting
import Testing

/// The backends of `StateStore`: contract tests take one as their argument and run against
/// each, so "the same semantics" is checked rather than hoped for.
enum StoreBackend: String, CaseIterable, CustomTestStringConvertible {
    case files
    /// The files backend in three parts (`storage.parts`; three, so that no power of two hides
    /// a mistake in dividing users or limits).
    case parts
    case memory
    case postgres

    var testDescription: String { rawValue }

    /// An open store of this backend with what keeps it alive (the files backend's directory).
    struct Opened {
        let store: any StateStore
        let fixture: StoreFixture?
        /// The files backend's part count, for opening its directory again.
        var parts = 1

        /// The backend's directory (or a crash copy of it) opened again.
        func reopen(
            _ directory: String? = nil, policy: ReminderPolicy, sinks: [String] = ["file"], now: Date
        ) throws -> (any StateStore)? {
            try fixture?.open(directory, parts: parts, policy: policy, sinks: sinks, now: now)
        }
    }

    func open(
        policy: ReminderPolicy = ReminderPolicy(), sinks: [String] = ["file"],
        now: Date = Fixtures.date("2026-11-15T10:00:00Z")
    ) throws -> Opened {
        switch self {
        case .files:
            let fixture = try StoreFixture()
            return Opened(store: try fixture.open(policy: policy, sinks: sinks, now: now), fixture: fixture)
        case .parts:
            let fixture = try StoreFixture()
            return Opened(
                store: try fixture.open(parts: 3, policy: policy, sinks: sinks, now: now), fixture: fixture, parts: 3)
        case .memory:
            return Opened(store: MemoryStateStore(sinks: sinks, policy: policy, now: now), fixture: nil)
        case .postgres:
            return Opened(store: try Self.openPostgres(policy: policy, sinks: sinks, now: now), fixture: nil)
        }
    }

    /// Events of different users are claimed in creation order, except across the parts of a
    /// divided store, which hand theirs out in turn (one user's are always in order: they are
    /// in one part).
    func expectOrder(
        of claimed: [UserID], _ created: [UserID], sourceLocation: SourceLocation = #_sourceLocation
    ) {
        if self == .parts {
            #expect(claimed.sorted() == created.sorted(), sourceLocation: sourceLocation)
        } else {
            #expect(claimed == created, sourceLocation: sourceLocation)
        }
    }

    /// A store on a fresh database of the test process's PostgreSQL server, running.
    static func openPostgres(
        policy: ReminderPolicy, sinks: [String], now: Date, database: String? = nil, leaseSeconds: Int = 30,
        instance: String = PostgresStateStore.defaultInstanceName()
    ) throws -> PostgresStateStore {
        let server = try PostgresServer.shared()
        let name = try database ?? server.createDatabase()
        let client = PostgresClient.Configuration(
            unixSocketPath: server.socketPath, username: "remindd", password: nil, database: name)
        var options = PostgresStateStore.Options(
            client: client, description: name, sinks: sinks, leaseSeconds: leaseSeconds, instance: instance)
        // The whole suite runs in parallel on two cores: a store's first connection and
        // migration may take longer than a request would wait in production.
        options.operationTimeout = .seconds(60)
        let store = PostgresStateStore(
            options: options,
            policy: policy, now: now, logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
        store.startInBackground()
        return store
    }
}
