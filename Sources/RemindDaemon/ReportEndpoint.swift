import Foundation
import RemindAPI
import RemindCore
import RemindStore

/// The one way a report becomes an answer: `POST /v1/users/{userID}/reports` through the
/// router (``ReportRoutes``) and through the event loop's fast path (``ReportFastPathHandler``) both end here.
///
/// It is two steps so that the fast path can take the first on the event loop: ``decide``
/// needs no store (the body is decoded, and a report that only repeats the user's state is
/// answered from the ``RepeatCache``), ``store`` stores a change. A store error is answered
/// (`503` with `Retry-After` when storage is unavailable for now), never retried behind the
/// client's back: a failed write changed nothing, and the client decides whether to retry.
struct ReportEndpoint: Sendable {
    enum Decision: Sendable {
        /// Answered without the store: a malformed report, or a repeat.
        case answer(ReportAnswer)
        /// A change: it must be stored before it is answered.
        case store(PermissionReport)
    }

    /// The daemon's answers to repeats; nil over a shared store (every report is stored).
    let repeats: RepeatCache?
    let metrics: DaemonMetrics
    /// Stores a change and returns the user's encoded status (`ReportRoutes.store`).
    let storeChange: @Sendable (PermissionReport, UserID, Date) async throws -> [UInt8]?
    /// Records a failed store (the daemon's last error, a log line); called once per failure.
    let noteFailure: @Sendable (any Error) -> Void

    /// The first step, on any thread: decodes `body` and answers a repeat.
    func decide(body: some Collection<UInt8>, of userID: UserID, receivedAt: Date) -> Decision {
        let report: PermissionReport
        switch validate({ () throws(ValidationError) in try PermissionReport(json: body, receivedAt: receivedAt) }) {
        case .success(let valid): report = valid
        case .failure(let problem): return .answer(.problem(problem))
        }
        if let status = repeats?.answer(report, of: userID, receivedAt: receivedAt) {
            metrics.recordReport(changed: false)
            return .answer(.userStatus(status))
        }
        return .store(report)
    }

    /// A report read by `read`, or the 400 that refuses it (counted as a rejected report):
    /// every report, alone or a line of a bulk request, is validated through here.
    func validate<T>(_ read: () throws(ValidationError) -> T) -> Result<T, Problem> {
        do {
            return .success(try read())
        } catch {
            return .failure(refuse(error))
        }
    }

    /// The 400 refusing a report, counted as a rejected report.
    func refuse(_ error: ValidationError) -> Problem {
        metrics.recordRejectedReport()
        return HTTPResponses.badRequestProblem(error)
    }

    /// The second step: stores a change and answers it, whatever happened.
    func store(_ report: PermissionReport, of userID: UserID, receivedAt: Date) async -> ReportAnswer {
        do {
            guard let status = try await storeChange(report, userID, receivedAt) else { return .noState }
            return .userStatus(status)
        } catch {
            return answer(storeError: error)
        }
    }

    /// The answer to a report the store did not take.
    func answer(storeError error: any Error) -> ReportAnswer {
        switch error {
        case let error as StoreError:
            noteFailure(error)
            return .storeFailure(error)
        case let error as ValidationError:
            return .problem(HTTPResponses.badRequestProblem(error))
        default:
            noteFailure(error)
            return .problem(Problem(status: 500, title: "Internal error", detail: "\(error)"))
        }
    }

    /// Both steps: the router's way.
    func answer(body: some Collection<UInt8>, of userID: UserID, receivedAt: Date) async -> ReportAnswer {
        switch decide(body: body, of: userID, receivedAt: receivedAt) {
        case .answer(let answer): answer
        case .store(let report): await store(report, of: userID, receivedAt: receivedAt)
        }
    }
}

extension ReportEndpoint {
    /// The user of `POST /v1/users/{userID}/reports` from a raw request path, as the fast path
    /// sees it: nil for another path (a query included), a 400's error for an invalid ID.
    static func userID(reportPath path: Substring) throws(ValidationError) -> UserID? {
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        guard segments.count == 5, segments[0].isEmpty, segments[1] == "v1", segments[2] == "users",
            segments[4] == "reports"
        else { return nil }
        return try UserID(pathSegment: segments[3])
    }
}
