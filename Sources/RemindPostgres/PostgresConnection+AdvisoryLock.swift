import Logging
import PostgresNIO

extension PostgresConnection {
    /// How long an advisory lock taken with `tryAdvisoryLock` is held.
    enum AdvisoryLockHold {
        /// Until the transaction ends.
        case transaction
        /// Until the session ends or it is unlocked; alone.
        case session
        /// Until the session ends, beside other shared holders and excluding an exclusive one.
        case sessionShared
    }

    /// Takes remindd's advisory lock `key` (in `PostgresSchema.lockSpace`) if nobody holds it
    /// in a way that excludes `hold`; false without waiting when somebody does.
    func tryAdvisoryLock(_ key: Int32, _ hold: AdvisoryLockHold, logger: Logger) async throws -> Bool {
        let space = PostgresSchema.lockSpace
        let query: PostgresQuery =
            switch hold {
            case .transaction: "SELECT pg_try_advisory_xact_lock(\(space), \(key))"
            case .session: "SELECT pg_try_advisory_lock(\(space), \(key))"
            case .sessionShared: "SELECT pg_try_advisory_lock_shared(\(space), \(key))"
            }
        var taken = false
        for try await value in try await self.query(query, logger: logger).decode(Bool.self) { taken = value }
        return taken
    }
}
