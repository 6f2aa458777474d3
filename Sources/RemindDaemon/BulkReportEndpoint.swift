import Foundation
import RemindAPI
import RemindCore
import RemindStore

/// `POST /v1/reports`: many reports in one request, one JSON object a line, each a report plus
/// its `userID` (docs/api.md "Bulk reports").
///
/// Each line is validated by the single report's ``ReportEndpoint/validate(_:)`` and stored by
/// the same fold (`storeReports`, one batch of the store), so a line is applied exactly as
/// `POST /v1/users/{userID}/reports` would apply it. Lines are independent: a refused line gets
/// its problem and the others are stored. The answer comes once the whole batch is durable, a
/// line for every non-empty request line, in order; when storage fails the whole request is
/// answered as a single report would be (`503`), and nothing of it was acknowledged.
struct BulkReportEndpoint: Sendable {
    /// The single report's endpoint: its validation and its answers to store errors.
    let reports: ReportEndpoint
    /// Stores the accepted reports as one batch and returns each one's encoded status
    /// (`ReportRoutes.storeBatch`); throws when storage failed.
    let storeBatch:
        @Sendable ([(report: PermissionReport, userID: UserID)], Date) async throws -> [Result<[UInt8]?, any Error>]

    /// A request line read and validated.
    enum Line {
        case report(userID: UserID, PermissionReport)
        case refused(userID: String?, Problem)
    }

    /// The answer to a request body (already within the size limit).
    func answer(body: [UInt8], receivedAt: Date) async -> ReportAnswer {
        let lines = NDJSONLines.split(body)
        guard lines.count <= APIPaths.maximumBulkLines else {
            return .problem(
                Problem(
                    status: 413, title: "Payload too large",
                    detail:
                        "the request has \(lines.count) reports; at most \(APIPaths.maximumBulkLines) are taken at once, and none of these was applied"
                ))
        }
        let read = lines.map { line in
            self.read(line, terminated: line.endIndex < body.endIndex, receivedAt: receivedAt)
        }
        var accepted: [(report: PermissionReport, userID: UserID)] = []
        for case .report(let userID, let report) in read { accepted.append((report, userID)) }
        var stored: [Result<[UInt8]?, any Error>] = []
        if !accepted.isEmpty {
            do {
                stored = try await storeBatch(accepted, receivedAt)
            } catch {
                // Storage failed: the request is refused whole, as a single report would be.
                return reports.answer(storeError: error)
            }
        }
        if let unavailable = Self.storageFailure(in: stored) { return reports.answer(storeError: unavailable) }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(read.count * 512)
        var next = stored.makeIterator()
        for (index, line) in read.enumerated() {
            switch line {
            case .refused(let userID, let problem):
                BulkReportAnswer.refused(line: index + 1, userID: userID, problem: problem, into: &bytes)
            case .report(let userID, _):
                switch next.next() {
                case .success(let status?)?:
                    BulkReportAnswer.accepted(line: index + 1, statusJSON: status, into: &bytes)
                case .success(nil)?, nil:
                    BulkReportAnswer.refused(
                        line: index + 1, userID: userID.rawValue, problem: Self.problem(of: .noState), into: &bytes)
                case .failure(let error)?:
                    BulkReportAnswer.refused(
                        line: index + 1, userID: userID.rawValue,
                        problem: Self.problem(of: reports.answer(storeError: error)), into: &bytes)
                }
            }
        }
        return ReportAnswer(status: 200, contentType: APIPaths.ndjsonMediaType, body: bytes)
    }

    /// One line: a JSON object with a valid `userID` and a valid report. A line cut off
    /// (the last one, without its newline) is refused even when it parses: it may be the
    /// prefix of a longer line, and a prefix can be a valid, different report.
    func read(_ line: ArraySlice<UInt8>, terminated: Bool, receivedAt: Date) -> Line {
        let object: JSONObject
        switch reports.validate({ () throws(ValidationError) in
            try PermissionReport.object(json: line, what: "the line")
        }) {
        case .success(let valid): object = valid
        case .failure(let problem): return .refused(userID: nil, problem)
        }
        let given: String?
        if case .string(let text)? = object["userID"] { given = text } else { given = nil }
        guard terminated else {
            return .refused(
                userID: given,
                reports.refuse(
                    ValidationError(
                        field: "",
                        reason: "the last line does not end in a newline: it may be cut off, so it was not applied")))
        }
        let userID: UserID
        switch reports.validate({ () throws(ValidationError) in try Self.userID(in: object) }) {
        case .success(let valid): userID = valid
        case .failure(let problem): return .refused(userID: given, problem)
        }
        switch reports.validate({ () throws(ValidationError) in
            try PermissionReport(object: object, receivedAt: receivedAt)
        }) {
        case .success(let report): return .report(userID: userID, report)
        case .failure(let problem): return .refused(userID: given, problem)
        }
    }

    /// The line's `userID` member: required, a string, a valid ID.
    static func userID(in object: JSONObject) throws(ValidationError) -> UserID {
        switch object["userID"] {
        case nil, .null?:
            throw ValidationError(field: "userID", reason: "is required on every line")
        case .string(let text)?:
            return try UserID(text)
        case let other?:
            throw ValidationError(field: "userID", reason: "must be a string, got \(other.typeName)")
        }
    }

    /// The first per-line failure that means storage as a whole is unavailable (a database
    /// that went down part-way): then the request is refused whole.
    static func storageFailure(in stored: [Result<[UInt8]?, any Error>]) -> StoreError? {
        for case .failure(let error as StoreError) in stored
        where error.isUnavailable || error.isDiskFull || error.isReadOnly {
            return error
        }
        return nil
    }

    /// The problem inside a single report's problem answer.
    static func problem(of answer: ReportAnswer) -> Problem {
        Problem(json: answer.body)
            ?? Problem(status: answer.status, title: "Internal error", detail: "the report was not stored")
    }
}
