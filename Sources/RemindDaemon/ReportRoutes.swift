import Foundation
import Hummingbird
import Logging
import NIOCore
import RemindAPI
import RemindConfig
import RemindCore
import RemindStore
import Systemd

/// The routes an app's backend reports through (docs/api.md "Reports"): a report for one user,
/// and many at once as NDJSON. Both need the `report` scope, which the report fast path
/// (``ReportFastPathHandler``) asks for too.
struct ReportRoutes {
    typealias Context = RemindRequestContext

    /// The scope a caller needs to report.
    static let scope = AccessScope.report

    let runtime: DaemonRuntime
    /// The report endpoint of the runtime, for this route and the fast path.
    let reports: ReportEndpoint
    /// `POST /v1/reports`, built on `reports`.
    let bulkReports: BulkReportEndpoint

    init(runtime: DaemonRuntime) {
        self.runtime = runtime
        reports = ReportEndpoint(
            repeats: runtime.repeats, metrics: runtime.metrics,
            storeChange: { report, userID, receivedAt in
                try await Self.store(report, for: userID, receivedAt: receivedAt, runtime: runtime)
            },
            noteFailure: { runtime.noteStoreFailure($0) })
        bulkReports = BulkReportEndpoint(
            reports: reports,
            storeBatch: { accepted, receivedAt in
                try await Self.storeBatch(accepted, receivedAt: receivedAt, runtime: runtime)
            })
    }

    func register(on routes: ScopedRoutes) {
        routes.report.post("/v1/users/:userID/reports", use: postReport)
        routes.report.post("/v1/reports", use: postBulkReports)
        routes.report.post("/v1/users/:userID/events", use: postEvents)
    }

    /// `POST /v1/users/{userID}/events`: `{"events":[{"type","id","at"}]}`, at most 100,
    /// idempotent per (type, id); answers `{"accepted":N}`, the events that were new. Refused
    /// whole with 422 naming `events[i].…` (nothing stored), 404 for an unknown user.
    @Sendable func postEvents(_ request: Request, context: Context) async throws -> Response {
        let userID = try UserID(pathSegment: context.parameters.require("userID"))
        let body = try await LimitedBody.collect(request)
        let receivedAt = runtime.wallClock()
        let events: [EngagementEvent]
        do throws(ValidationError) {
            let object = try PermissionReport.object(json: body.readableBytesView)
            guard case .array(let values)? = object["events"] else {
                throw ValidationError(field: "events", reason: "is required: an array of events", status: 422)
            }
            events = try EngagementEvent.list(values, field: "events", receivedAt: receivedAt)
        } catch {
            return HTTPResponses.badRequest(error)
        }
        let accepted: Int
        do {
            accepted = try await runtime.recordEvents(events, for: userID)
        } catch {
            // A refusal (ValidationError) is answered with its status as a report's is.
            return HTTPResponses.answer(reports.answer(storeError: error))
        }
        return HTTPResponses.json { writer in
            writer.beginObject()
            writer.member("accepted", accepted)
            writer.endObject()
        }
    }

    @Sendable func postReport(_ request: Request, context: Context) async throws -> Response {
        let userID = try UserID(pathSegment: context.parameters.require("userID"))
        let body = try await LimitedBody.collect(request)
        let answer = await reports.answer(body: body.readableBytesView, of: userID, receivedAt: runtime.wallClock())
        return HTTPResponses.answer(answer)
    }

    /// `POST /v1/reports`: `application/x-ndjson` only (`415` otherwise, before the body is
    /// read), at most 16 MiB (`413`).
    @Sendable func postBulkReports(_ request: Request, context: Context) async throws -> Response {
        guard Self.isNDJSON(request.headers[.contentType]) else {
            throw Problem(
                status: 415, title: "Unsupported media type",
                detail:
                    "\(APIPaths.bulkReports) takes \(APIPaths.ndjsonMediaType): one report a line, each with its userID"
            )
        }
        let body = try await LimitedBody.collect(request, limit: APIPaths.maximumBulkBodySize)
        let answer = await bulkReports.answer(body: Array(body.readableBytesView), receivedAt: runtime.wallClock())
        return HTTPResponses.answer(answer)
    }

    /// Whether a `Content-Type` names NDJSON (parameters such as a charset aside).
    static func isNDJSON(_ contentType: String?) -> Bool {
        guard let contentType else { return false }
        let mediaType = contentType.prefix { $0 != ";" }.trimmingCharacters(in: .whitespaces)
        return mediaType.caseInsensitiveCompare(APIPaths.ndjsonMediaType) == .orderedSame
    }
}

extension ReportRoutes {
    /// Stores a decoded report (``ReportStorage``), counts and logs what it did, and returns
    /// the encoded answer (nil if the stored user has no status): the store step of
    /// ``ReportEndpoint``. Throws what the store throws (a failed write changes nothing).
    static func store(
        _ report: PermissionReport, for userID: UserID, receivedAt: Date, runtime: DaemonRuntime
    ) async throws -> [UInt8]? {
        let stored = try await runtime.reportStorage.store(report, for: userID, receivedAt: receivedAt)
        note(stored.outcome, userID: userID, runtime: runtime)
        return stored.answer
    }

    /// Stores a batch of decoded reports (``ReportStorage``: one batch of the store, durable
    /// before it returns) and gives each the answer a single report gets. Throws what the store
    /// throws when storage failed.
    static func storeBatch(
        _ reports: [(report: PermissionReport, userID: UserID)], receivedAt: Date, runtime: DaemonRuntime
    ) async throws -> [Result<[UInt8]?, any Error>] {
        try await runtime.reportStorage.store(batch: reports, receivedAt: receivedAt).enumerated().map {
            index, result in
            result.map { stored in
                note(stored.outcome, userID: reports[index].userID, runtime: runtime)
                return stored.answer
            }
        }
    }

    /// What follows a stored report, alone or in a batch: the metrics and a journal line per
    /// episode transition.
    private static func note(_ outcome: ReportOutcome, userID: UserID, runtime: DaemonRuntime) {
        runtime.metrics.recordReport(changed: outcome.changed)
        let opened = outcome.transitions.contains { if case .opened = $0 { true } else { false } }
        if opened || !outcome.outcomes.isEmpty {
            let group = opened ? outcome.record.openEpisode?.group : nil
            runtime.metrics.recordEpisodes(opened: group.map { [$0] } ?? [], closed: outcome.outcomes)
        }
        log(outcome.transitions, userID: userID, logger: runtime.logger)
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
}
