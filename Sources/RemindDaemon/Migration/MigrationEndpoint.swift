import Foundation
import Logging
import NIOPosix
import PostgresNIO
import RemindAPI
import RemindConfig
import RemindCore
import RemindPostgres
import RemindStore

/// One side of `remindd migrate`: a configuration's storage opened for the migration, with
/// what keeps other users out of it until the migration ends (the state directory's lock, or
/// the database's presence lock).
struct MigrationEndpoint {
    let store: any StateTransfer
    /// How messages name the place: the state directory and its division, or the database
    /// URL without its password.
    let place: String
    private let release: @Sendable () async -> Void

    /// Gives the storage up. A source is abandoned without a checkpoint: it was only read, and
    /// its files stay exactly as they were.
    func close(checkpoint: Bool) async {
        if checkpoint { await store.close() }
        await release()
    }

    /// Opens `configuration`'s storage; `MigrationError.refused` when it is in use or cannot be
    /// opened as configured. `mustExist`: a source directory is not created.
    static func open(
        _ configuration: DaemonConfiguration, role: String, mustExist: Bool, logger: Logger, now: Date
    ) async throws(MigrationError) -> MigrationEndpoint {
        let sinks = configuration.sinks.map(\.name)
        let policy = ReminderPolicy(configuration: configuration.policy)
        switch configuration.storage.type {
        case .files:
            let directory = configuration.stateDirectory
            let parts = configuration.storage.parts
            let place = "the state directory \(directory)" + (parts > 1 ? " (\(parts) parts)" : "")
            if mustExist && !FileManager.default.fileExists(atPath: directory) {
                throw .refused("the \(role), \(place), does not exist")
            }
            let options = FileStateStore.Options(directory: directory, sinks: sinks)
            let notice: @Sendable (StoreNotice) -> Void = { Daemon.logStoreNotice($0, logger: logger) }
            do {
                if parts > 1 {
                    let store = try PartitionedStateStore(
                        options: .init(directory: directory, parts: parts, part: options), policy: policy, now: now,
                        notice: notice)
                    return MigrationEndpoint(store: store, place: place) { store.abandon() }
                }
                let store = try FileStateStore(options: options, policy: policy, now: now, notice: notice)
                return MigrationEndpoint(store: store, place: place) { store.abandon() }
            } catch {
                if error.isLocked {
                    throw .refused("the \(role), \(place), is in use: \(error); stop that remindd first")
                }
                if error.isLayoutMismatch { throw .refused("the \(role): \(error)") }
                throw .failed("the \(role), \(place): \(error)")
            }
        case .postgres:
            let url: DatabaseURL
            do {
                url = try configuration.storage.requiredURL()
            } catch {
                throw .refused("the \(role)'s configuration: \(error)")
            }
            let place = "PostgreSQL at \(url.description)"
            var options = PostgresStateStore.Options(
                client: Daemon.clientConfiguration(url, poolSize: min(configuration.storage.poolSize, 4)),
                description: url.description, sinks: sinks, leaseSeconds: configuration.storage.leaseSeconds)
            options.announcesPresence = false
            // A migration waits for its statements longer than a request would.
            options.operationTimeout = .seconds(120)
            let store = PostgresStateStore(options: options, policy: policy, now: now, logger: logger)
            // Before the store touches the database: no instance may use it meanwhile.
            let held: PostgresConnection
            do {
                held = try await store.holdExclusively()
            } catch let error as DatabaseInUse {
                throw .refused(
                    "the \(role), \(place), is in use: \(error.users.joined(separator: ", ")); stop those instances first"
                )
            } catch {
                throw .failed("the \(role), \(place): cannot connect: \(PostgresStateStore.describe(error))")
            }
            store.startInBackground()
            return MigrationEndpoint(store: store, place: place) {
                await store.close()
                try? await held.close()
            }
        }
    }

    /// What the store holds, for the messages of a refusal; nil when empty.
    func contents() async throws -> String? {
        let statistics = await store.statistics()
        let events = statistics.outboxPending.values.reduce(0, +)
        let letters = await store.deadLetters().count
        let outcomes = try await store.exportOutcomes(after: nil, limit: 1).items.count
        guard statistics.users + events + letters + outcomes > 0 else { return nil }
        var held = ["\(statistics.users) users", "\(events) pending events", "\(letters) dead letters"]
        if outcomes > 0 { held.append("closed episodes in its outcomes") }
        return held.joined(separator: ", ")
    }
}
