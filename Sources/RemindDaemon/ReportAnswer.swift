import RemindAPI
import RemindCore
import RemindStore

/// The answer to a report, before HTTP framing: the router turns it into a Hummingbird
/// `Response`, the fast path into a response head and body on the event loop. Its bytes are
/// encoded here, once, for both.
struct ReportAnswer: Sendable, Equatable {
    var status: Int
    var contentType: String
    var body: [UInt8]
    /// `Retry-After` seconds, for answers that say "not now".
    var retryAfter: String?

    /// The user's status after the report.
    static func userStatus(_ bytes: [UInt8]) -> ReportAnswer {
        ReportAnswer(status: 200, contentType: "application/json", body: bytes)
    }

    static func problem(_ problem: Problem, retryAfter: String? = nil) -> ReportAnswer {
        ReportAnswer(
            status: problem.status, contentType: Problem.mediaType, body: problem.jsonBytes, retryAfter: retryAfter)
    }

    /// A report the store refused: 503 with `Retry-After` when storage is unavailable for now
    /// (disk full, read-only, database unreachable), else 500. Nothing was changed either way.
    static func storeFailure(_ error: StoreError) -> ReportAnswer {
        if error.isDiskFull || error.isReadOnly {
            return .problem(
                Problem(
                    status: 503, title: "Storage unavailable",
                    detail:
                        "the state directory cannot be written (\(error.isDiskFull ? "disk full" : "read-only")); nothing was changed, retry later"
                ), retryAfter: "5")
        }
        if error.isUnavailable {
            return .problem(
                Problem(
                    status: 503, title: "Storage unavailable", detail: "\(error); nothing was changed, retry later"),
                retryAfter: "5")
        }
        return .problem(Problem(status: 500, title: "Storage error", detail: "\(error)"))
    }

    /// A stored user without state (cannot happen: a report always leaves a history entry).
    static let noState = ReportAnswer.problem(
        Problem(status: 500, title: "Internal error", detail: "stored user has no state"))
}
