import Foundation
import PostgresNIO
import RemindStore
import Synchronization

extension PostgresStateStore {
    /// Runs `operation` once the store is ready, within `operationTimeout`, and turns what
    /// the client throws into `StoreError`: unavailable (503) for anything that says the
    /// database cannot be reached, refused (500) for a statement the server rejected. While
    /// the database is known to be unreachable it is refused at once, and it is answered as
    /// soon as that becomes known (`DatabaseHealth`).
    func database<T: Sendable>(
        timeout: Duration? = nil, _ operation: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        let answer = OnceContinuation<T>()
        let admission = health.withLock {
            $0.begin({ answer.resume(with: .failure($0)) }, timeout: timeout ?? options.operationTimeout, now: .now)
        }
        let id: DatabaseHealth<Waiter>.OperationID
        let waitForStart: Bool
        switch admission {
        case .refuse(let reason): throw StoreError.databaseUnavailable(reason)
        case .run(let started): (id, waitForStart) = (started, false)
        case .waitForStart(let started): (id, waitForStart) = (started, true)
        }
        defer { health.withLock { $0.end(id) } }
        operationsStarted.signal()
        let work = Task {
            // Before the first connection (and migration) a request waits for it: a
            // socket-activated daemon's first request arrives before the database answered,
            // and should be served, not refused. Unless that attempt fails first.
            if waitForStart {
                await self.readyLatch.wait()
                guard !Task.isCancelled else { return }
            }
            answer.resume(with: await Result(catching: { try await operation() }))
        }
        do {
            return try await withTaskCancellationHandler {
                try await answer.value()
            } onCancel: {
                answer.resume(with: .failure(CancellationError()))
            }
        } catch let error as StoreError {
            work.cancel()
            throw error
        } catch is CancellationError {
            work.cancel()
            throw CancellationError()
        } catch {
            work.cancel()
            let refused = Self.storeError(error)
            // A statement the server stopped at this operation's timeout (`transaction`) says
            // no more than this side's own timeout: not that the connection failed.
            if refused.isUnavailable, !(error is OperationTimeout), Self.sqlState(error) != Self.queryCanceled {
                noteConnectionFailure()
            }
            throw refused
        }
    }

    /// `database` around one transaction: committed when `body` returns, rolled back when it
    /// throws; `readOnlySnapshot` for reads that must agree with each other.
    ///
    /// The server knows how long this instance waits (`statement_timeout`: the operation
    /// timeout, a startup parameter of every connection, `StatementTimeout`; a transaction
    /// given a timeout of its own sets that for itself): a statement given up on here would
    /// otherwise run on there, and it did. A claim that took longer than a request waits was
    /// sent again while the first still ran; their snapshots kept vacuum from removing the
    /// rows delivered meanwhile, which made each following claim slower, until dozens ran for
    /// minutes at once.
    func transaction<T: Sendable>(
        timeout: Duration? = nil, readOnlySnapshot: Bool = false,
        _ body: @escaping @Sendable (PostgresConnection) async throws -> T
    ) async throws -> T {
        let own = timeout.flatMap { $0 == options.operationTimeout ? nil : $0 }
        return try await database(timeout: timeout) {
            try await self.client.withTransaction(logger: self.logger) { connection in
                if readOnlySnapshot {
                    // Before any other statement of the transaction, as the server requires.
                    try await connection.query(
                        "SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY", logger: self.logger)
                }
                if let own { try await connection.setTransactionTimeout(own, logger: self.logger) }
                return try await body(connection)
            }
        }
    }

    static func storeError(_ error: any Error) -> StoreError {
        // What failed inside the transaction, not its wrapper: a statement the server refused
        // is not an unreachable database.
        let error = unwrapped(error)
        if let error = error as? StoreError { return error }
        if let error = error as? PSQLError, error.code == .server {
            let state = error.serverInfo?[.sqlState] ?? ""
            if state == queryCanceled { return .databaseUnavailable(OperationTimeout().description) }
            let message = error.serverInfo?[.message] ?? "server error"
            // Connection exceptions, operator intervention (shutdown, restart), insufficient
            // resources, system errors: the database is not there for us right now.
            if ["08", "57", "53", "58"].contains(String(state.prefix(2))) {
                return .databaseUnavailable("\(message) (\(state))")
            }
            return .database("\(message) (\(state))")
        }
        return .databaseUnavailable(describe(error))
    }

    /// The SQLSTATE of a statement the server stopped at `statement_timeout`.
    static let queryCanceled = "57014"

    /// What failed inside a transaction, not its wrapper.
    static func unwrapped(_ error: any Error) -> any Error {
        guard let error = error as? PostgresTransactionError,
            let inner = error.closureError ?? error.beginError ?? error.commitError
        else { return error }
        return unwrapped(inner)
    }

    /// The SQLSTATE of what the server refused, inside a transaction's wrapper too.
    static func sqlState(_ error: any Error) -> String? {
        guard let error = unwrapped(error) as? PSQLError, error.code == .server else { return nil }
        return error.serverInfo?[.sqlState]
    }

    /// A deadlock or serialization failure: the server aborted the statement so that another
    /// could go on, and the same statement may succeed when tried again.
    static func isTransient(_ error: any Error) -> Bool {
        ["40P01", "40001"].contains(sqlState(error) ?? "")
    }

    /// A short reason for logs and `STATUS=`: what the client says, never the URL or password
    /// (PostgresNIO's errors do not carry them).
    public static func describe(_ error: any Error) -> String {
        if let error = error as? PSQLError {
            if error.code == .server {
                return "\(error.serverInfo?[.message] ?? "server error") (\(error.serverInfo?[.sqlState] ?? "?"))"
            }
            if let underlying = error.underlying { return "\(error.code): \(underlying)" }
            return "\(error.code)"
        }
        if error is OperationTimeout { return "no answer within the time allowed" }
        return "\(error)"
    }
}

/// An operation that did not finish in time.
struct OperationTimeout: Error, CustomStringConvertible {
    var description: String { "no answer within the time allowed" }
}

/// Runs `operation` and answers its result, or `OperationTimeout` once `limit` passes: the
/// caller is not held by a statement that never returns (a server that stopped answering
/// without closing the connection). The operation is cancelled then, and left to end alone.
func withTimeout<T: Sendable>(
    _ limit: Duration, _ operation: @escaping @Sendable () async throws -> T
) async throws -> T {
    let answer = OnceContinuation<T>()
    let work = Task { answer.resume(with: await Result(catching: { try await operation() })) }
    let timer = Task {
        try await Task.sleep(for: limit)
        if answer.resume(with: .failure(OperationTimeout())) { work.cancel() }
    }
    return try await withTaskCancellationHandler {
        defer { timer.cancel() }
        return try await answer.value()
    } onCancel: {
        work.cancel()
        _ = answer.resume(with: .failure(CancellationError()))
    }
}

/// A result that the first of several racers sets; later ones are ignored.
final class OnceContinuation<T: Sendable>: Sendable {
    private struct State {
        var result: Result<T, any Error>?
        var waiter: CheckedContinuation<T, any Error>?
    }

    private let state = Mutex(State())

    /// True when this call set the result.
    @discardableResult
    func resume(with result: Result<T, any Error>) -> Bool {
        let (set, waiter) = state.withLock { state -> (Bool, CheckedContinuation<T, any Error>?) in
            guard state.result == nil else { return (false, nil) }
            state.result = result
            defer { state.waiter = nil }
            return (true, state.waiter)
        }
        waiter?.resume(with: result)
        return set
    }

    func value() async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let ready = state.withLock { state -> Result<T, any Error>? in
                if let result = state.result { return result }
                state.waiter = continuation
                return nil
            }
            if let ready { continuation.resume(with: ready) }
        }
    }
}

extension Result where Failure == any Error {
    init(catching body: () async throws -> Success) async {
        do { self = .success(try await body()) } catch { self = .failure(error) }
    }
}
