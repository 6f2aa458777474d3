import Foundation
import Hummingbird
import Logging
import NIOCore
import RemindAPI
import RemindCore
import RemindStore
import Systemd

extension APIResponder {
    func postReport(_ request: Request, userID: UserID) async throws -> Response {
        switch try await self.body(of: request) {
        case .success(let body):
            let answer = await reports.answer(body: body.readableBytesView, of: userID, receivedAt: runtime.wallClock())
            return HTTPResponses.answer(answer)
        case .failure(let response):
            return response
        }
    }

    /// Stores a decoded report, counts and logs what it did, and returns the user's encoded
    /// status (nil if the stored user has none): the store step of ``ReportEndpoint``. Throws
    /// what the store throws (a failed write changes nothing).
    static func store(
        _ report: PermissionReport, for userID: UserID, receivedAt: Date, runtime: DaemonRuntime
    ) async throws -> [UInt8]? {
        let stored = try await runtime.store.storeReport(report, for: userID, receivedAt: receivedAt)
        return await answer(stored, userID: userID, runtime: runtime, policy: nil)
    }

    /// What follows a stored report, alone or in a batch: the metrics, a journal line per
    /// episode transition, and the user's encoded status (the one the store rendered, else
    /// encoded with `policy`, fetched when nil).
    static func answer(
        _ stored: StoredReport, userID: UserID, runtime: DaemonRuntime, policy: ReminderPolicy?
    ) async -> [UInt8]? {
        let outcome = stored.outcome
        runtime.metrics.recordReport(changed: outcome.changed)
        let opened = outcome.transitions.contains { if case .opened = $0 { true } else { false } }
        if opened || !outcome.outcomes.isEmpty {
            let group = opened ? outcome.record.openEpisode?.group : nil
            runtime.metrics.recordEpisodes(opened: group.map { [$0] } ?? [], closed: outcome.outcomes)
        }
        log(outcome.transitions, userID: userID, logger: runtime.logger)
        if let rendered = stored.renderedStatus { return rendered }
        var policy = policy
        if policy == nil { policy = await runtime.store.policy }
        guard let policy else { return nil }
        return UserStatus(record: outcome.record, policy: policy, daemonStartedAt: runtime.store.daemonStartedAt)?
            .jsonBytes
    }

    private static func log(_ transitions: [EpisodeTransition], userID: UserID, logger: Logger) {
        for transition in transitions {
            var metadata: Logger.Metadata = ["REMINDD_USER_ID": .string(userID.rawValue)]
            switch transition {
            case .opened(let startedAt):
                metadata[MessageID.metadataKey] = MessageID.episodeOpened.metadataValue
                logger.info("episode opened for \(userID) at \(RFC3339.format(startedAt))", metadata: metadata)
            case .closed(let startedAt, let closedAt, let delivered):
                metadata[MessageID.metadataKey] = MessageID.episodeClosed.metadataValue
                logger.info(
                    "episode of \(userID) since \(RFC3339.format(startedAt)) closed at \(RFC3339.format(closedAt)) after \(delivered) reminder(s)",
                    metadata: metadata)
            case .movedStart(let from, let to):
                logger.info(
                    "episode of \(userID) starts earlier: \(RFC3339.format(from)) → \(RFC3339.format(to))",
                    metadata: metadata)
            }
        }
    }

    func getUser(_ userID: UserID) async throws -> Response {
        guard let record = try await runtime.store.record(userID) else {
            return HTTPResponses.notFound("no user \(userID)")
        }
        let policy = await runtime.store.policy
        guard let status = UserStatus(record: record, policy: policy, daemonStartedAt: runtime.startedAt) else {
            return HTTPResponses.notFound("no user \(userID)")
        }
        return HTTPResponses.json(status.jsonBytes)
    }

    func deleteUser(_ userID: UserID, actor: String) async throws -> Response {
        // Read first for the metric only: the store itself records the forgotten episode.
        let before = try await runtime.store.record(userID)
        let now = runtime.wallClock()
        let route = "DELETE /v1/users/{userID}"
        guard try await runtime.store.delete(userID, at: now) else {
            runtime.audit("forget refused: no such user", actor: actor, route: route, userID: userID.rawValue)
            return HTTPResponses.notFound("no user \(userID)")
        }
        if let before, let open = before.openEpisode {
            runtime.metrics.recordEpisodes(
                opened: [], closed: [EpisodeOutcome(open, of: before, outcome: .forgotten, closedAt: now)])
        }
        runtime.audit("user forgotten", actor: actor, route: route, userID: userID.rawValue)
        return Response(status: .noContent)
    }

    func getHistory(_ request: Request, userID: UserID) async throws -> Response {
        let limit = try Self.integerParameter(request, "limit", range: 1...1_000_000) ?? Int.max
        guard let record = try await runtime.store.record(userID) else {
            return HTTPResponses.notFound("no user \(userID)")
        }
        let history = UserHistory(
            userID: userID.rawValue, entries: record.history.prefix(limit).map(UserHistory.Entry.init))
        return HTTPResponses.json(history.jsonBytes)
    }

    func getExplanation(_ userID: UserID) async throws -> Response {
        guard let record = try await runtime.store.record(userID) else {
            return HTTPResponses.notFound("no user \(userID)")
        }
        let policy = await runtime.store.policy
        let explanation = policy.explain(record, now: runtime.wallClock(), daemonStartedAt: runtime.startedAt)
        return HTTPResponses.json(UserExplanation(userID: userID, explanation).jsonBytes)
    }

    /// An integer query parameter in `range`; nil when absent; a 400 naming it otherwise.
    static func integerParameter(
        _ request: Request, _ name: String, range: ClosedRange<Int>
    ) throws(ValidationError)
        -> Int?
    {
        guard let text = request.uri.queryParameters[name[...]] else { return nil }
        guard let value = Int(text), range.contains(value) else {
            throw ValidationError(
                field: name, reason: "must be an integer from \(range.lowerBound) to \(range.upperBound)")
        }
        return value
    }
}
