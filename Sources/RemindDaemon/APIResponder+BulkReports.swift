import Foundation
import Hummingbird
import NIOCore
import RemindAPI
import RemindCore
import RemindStore

extension APIResponder {
    /// `POST /v1/reports`: `application/x-ndjson` only (`415` otherwise, before the body is
    /// read), at most 16 MiB (`413`).
    func postBulkReports(_ request: Request) async throws -> Response {
        guard Self.isNDJSON(request.headers[.contentType]) else {
            return HTTPResponses.problem(
                415, "Unsupported media type",
                "\(APIPaths.bulkReports) takes \(APIPaths.ndjsonMediaType): one report a line, each with its userID")
        }
        switch try await body(of: request, limit: APIPaths.maximumBulkBodySize) {
        case .success(let body):
            let answer = await bulkReports.answer(
                body: Array(body.readableBytesView), receivedAt: runtime.wallClock())
            return HTTPResponses.answer(answer)
        case .failure(let response):
            return response
        }
    }

    /// Whether a `Content-Type` names NDJSON (parameters such as a charset aside).
    static func isNDJSON(_ contentType: String?) -> Bool {
        guard let contentType else { return false }
        let mediaType = contentType.prefix { $0 != ";" }.trimmingCharacters(in: .whitespaces)
        return mediaType.caseInsensitiveCompare(APIPaths.ndjsonMediaType) == .orderedSame
    }

    /// Stores a batch of decoded reports (`storeReports`: one batch of the store, durable
    /// before it returns) and gives each the answer a single report gets (``answer``). Throws
    /// what the store throws when storage failed.
    static func storeBatch(
        _ reports: [(report: PermissionReport, userID: UserID)], receivedAt: Date, runtime: DaemonRuntime
    ) async throws -> [Result<[UInt8]?, any Error>] {
        let stored = try await runtime.store.storeReports(reports, receivedAt: receivedAt)
        let policy = await runtime.store.policy
        var answers: [Result<[UInt8]?, any Error>] = []
        answers.reserveCapacity(stored.count)
        for (result, report) in zip(stored, reports) {
            switch result {
            case .success(let stored):
                answers.append(.success(await answer(stored, userID: report.userID, runtime: runtime, policy: policy)))
            case .failure(let error):
                answers.append(.failure(error))
            }
        }
        return answers
    }
}
