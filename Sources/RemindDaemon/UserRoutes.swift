import Foundation
import Hummingbird
import RemindAPI
import RemindCore
import RemindStore

/// The routes about users (docs/api.md "Users"): one user's status, history and explanation,
/// the list of all users, and forgetting one.
struct UserRoutes {
    typealias Context = RemindRequestContext

    let runtime: DaemonRuntime

    func register(on routes: ScopedRoutes) {
        routes.read.get("/v1/users", use: getUsers)
        routes.read.get("/v1/users/:userID", use: getUser)
        routes.admin.delete("/v1/users/:userID", use: deleteUser)
        routes.read.get("/v1/users/:userID/history", use: getHistory)
        routes.read.get("/v1/users/:userID/explain", use: getExplanation)
    }

    /// The user the path names; a 400 naming `userID` when it is not a valid ID.
    static func userID(_ context: Context) throws -> UserID {
        try UserID(pathSegment: context.parameters.require("userID"))
    }

    @Sendable func getUser(_ request: Request, context: Context) async throws -> Response {
        let userID = try Self.userID(context)
        guard let record = try await runtime.record(userID) else {
            return HTTPResponses.notFound("no user \(userID)")
        }
        let policy = await runtime.store.policy
        guard let status = UserStatus(record: record, policy: policy, daemonStartedAt: runtime.startedAt) else {
            return HTTPResponses.notFound("no user \(userID)")
        }
        return HTTPResponses.json(status.jsonBytes)
    }

    @Sendable func deleteUser(_ request: Request, context: Context) async throws -> Response {
        let userID = try Self.userID(context)
        let actor = context.identity?.name ?? "unknown"
        let route = "DELETE /v1/users/{userID}"
        guard let forgotten = try await runtime.forget(userID) else {
            runtime.audit("forget refused: no such user", actor: actor, route: route, userID: userID.rawValue)
            return HTTPResponses.notFound("no user \(userID)")
        }
        if !forgotten.outcomes.isEmpty { runtime.metrics.recordEpisodes(opened: [], closed: forgotten.outcomes) }
        runtime.audit("user forgotten", actor: actor, route: route, userID: userID.rawValue)
        return Response(status: .noContent)
    }

    @Sendable func getHistory(_ request: Request, context: Context) async throws -> Response {
        let userID = try Self.userID(context)
        let limit = try QueryParameters.integer(request, "limit", range: 1...1_000_000) ?? Int.max
        guard let record = try await runtime.record(userID) else {
            return HTTPResponses.notFound("no user \(userID)")
        }
        let history = UserHistory(
            userID: userID.rawValue, entries: record.history.prefix(limit).map(UserHistory.Entry.init),
            engagement: Array(UserHistory.Engagement.all(in: record).prefix(limit)))
        return HTTPResponses.json(history.jsonBytes)
    }

    @Sendable func getExplanation(_ request: Request, context: Context) async throws -> Response {
        let userID = try Self.userID(context)
        guard let record = try await runtime.record(userID) else {
            return HTTPResponses.notFound("no user \(userID)")
        }
        let policy = await runtime.store.policy
        let explanation = policy.explain(record, now: runtime.wallClock(), daemonStartedAt: runtime.startedAt)
        return HTTPResponses.json(UserExplanation(userID: userID, explanation).jsonBytes)
    }
}
