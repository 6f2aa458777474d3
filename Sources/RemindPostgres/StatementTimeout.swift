import Logging
import PostgresNIO

/// The server-side limit on each statement (`statement_timeout`). Every connection of the
/// pool starts with the operation timeout as a startup parameter, so a statement this
/// instance gave up on does not run on there, at no round trip per transaction. The few
/// operations meant to run long raise it for themselves, here.
enum StatementTimeout {
    /// `parameters` with `statement_timeout` set to `limit` (replacing any given before).
    static func startupParameters(_ parameters: [(String, String)], limit: Duration) -> [(String, String)] {
        parameters.filter { $0.0 != "statement_timeout" } + [("statement_timeout", milliseconds(limit))]
    }

    static func milliseconds(_ limit: Duration) -> String { String(Int(limit / .milliseconds(1))) }
}

extension PostgresConnection {
    /// Sets this transaction's statement timeout (`nil`: none); it ends with the transaction.
    func setTransactionTimeout(_ limit: Duration?, logger: Logger) async throws {
        let value = limit.map(StatementTimeout.milliseconds) ?? "0"
        try await query("SELECT set_config('statement_timeout', \(value), true)", logger: logger)
    }

    /// Runs `body` on this session with no statement timeout (a blocking lock held by another
    /// instance for as long as its work takes), then gives the session its own back: the
    /// connection returns to the pool.
    func withoutStatementTimeout<T>(logger: Logger, _ body: () async throws -> T) async throws -> T {
        try await query("SET statement_timeout = 0", logger: logger)
        do {
            let value = try await body()
            try await query("RESET statement_timeout", logger: logger)
            return value
        } catch {
            _ = try? await query("RESET statement_timeout", logger: logger)
            throw error
        }
    }
}
