import Foundation
import Logging
import PostgresNIO
import RemindCore
import RemindStore

/// Whether remindd instances use a database, for `remindd migrate`, which must neither read a
/// state that changes under it nor write one a daemon serves. Every instance holds the presence
/// lock shared on its LISTEN connection (a session lock: it goes with the connection, so a
/// crashed instance holds nothing); the migration takes it exclusively on a connection of its
/// own, which succeeds only while no instance holds it, and keeps it to the end, so no instance
/// starts using the database meanwhile unnoticed.
extension PostgresStateStore {
    /// Takes the presence lock shared; an instance that cannot (a migration holds it) says so and
    /// serves on.
    func announcePresence(on connection: PostgresConnection) async {
        do {
            if try await !connection.tryAdvisoryLock(PostgresSchema.presenceLock, .sessionShared, logger: logger) {
                logger.error("remindd migrate is copying to or from \(options.description): stop this instance")
            }
        } catch {
            logger.warning("taking the presence lock: \(Self.describe(error))")
        }
    }

    /// Takes the presence lock exclusively, or throws naming the instances that use the
    /// database (their server processes, and the owners of unexpired leases). Keep the returned
    /// connection open for as long as the database must stay unused; closing it gives it up.
    public func holdExclusively() async throws -> PostgresConnection {
        let configuration = try await probeConfiguration()
        let connection = try await PostgresConnection.connect(configuration: configuration, id: 1, logger: logger)
        do {
            if try await connection.tryAdvisoryLock(PostgresSchema.presenceLock, .session, logger: logger) {
                return connection
            }
            var users: [String] = []
            for try await (pid, address) in try await connection.query(
                """
                SELECT a.pid, coalesce(host(a.client_addr), 'local socket') FROM pg_locks l
                JOIN pg_stat_activity a ON a.pid = l.pid
                WHERE l.locktype = 'advisory' AND l.classid = \(PostgresSchema.lockSpace)
                  AND l.objid = \(PostgresSchema.presenceLock) AND l.granted
                ORDER BY a.pid
                """, logger: logger
            ).decode((Int32, String).self) {
                users.append("server process \(pid) (\(address))")
            }
            // A database remindd never started on has no outbox yet: nobody to name there.
            do {
                for try await owner in try await connection.query(
                    """
                    SELECT DISTINCT lease_owner FROM remindd_outbox
                    WHERE lease_owner IS NOT NULL AND lease_until > now() ORDER BY lease_owner
                    """, logger: logger
                ).decode(String.self) {
                    users.append("instance \(owner) (holds event leases)")
                }
            } catch {}
            try? await connection.close()
            throw DatabaseInUse(database: options.description, users: users)
        } catch {
            try? await connection.close()
            throw error
        }
    }
}

extension PostgresStateStore {
    /// The marker `remindd migrate` leaves while it copies into this database, if there is one.
    func unfinishedMigration() async throws -> String? {
        var marker: String?
        for try await value in try await client.query(
            "SELECT value FROM remindd_meta WHERE key = 'migration'", logger: logger
        ).decode(String.self) {
            marker = value
        }
        return marker
    }
}

/// A daemon does not serve a database a migration is still copying into.
struct UnfinishedMigration: Error, CustomStringConvertible {
    var marker: String

    var description: String {
        "the database holds an unfinished migration (\(marker)): waiting for remindd migrate (--resume) to finish it"
    }
}

/// The database is used by running instances.
public struct DatabaseInUse: Error, CustomStringConvertible {
    public var database: String
    /// Who uses it, as far as the server tells.
    public var users: [String]

    public var description: String {
        let who = users.isEmpty ? "a remindd instance" : users.joined(separator: ", ")
        return "PostgreSQL at \(database) is in use by \(who)"
    }
}
