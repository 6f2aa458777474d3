import Foundation
import RemindAPI
import RemindCore

/// The daemon's API as typed calls: one method per route of `openapi.yaml`, each returning the
/// decoded answer together with its bytes.
///
/// Error statuses become `DaemonClientError` with the problem details the daemon sent, so a
/// caller reports the daemon's own words (`no user u-1`) rather than a status code.
public struct DaemonClient: Sendable {
    public let http: DaemonHTTPClient

    public var socketPath: String { http.socketPath }

    public init(socketPath: String, timeoutSeconds: Int = 30) {
        http = DaemonHTTPClient(socketPath: socketPath, timeoutSeconds: timeoutSeconds)
    }

    public init(http: DaemonHTTPClient) {
        self.http = http
    }

    public func status() throws(DaemonClientError) -> Answer<DaemonStatus> {
        try exchange("GET", APIPaths.status, decode: DaemonStatus.init(json:))
    }

    public func user(_ userID: String) throws(DaemonClientError) -> Answer<UserStatus> {
        try exchange("GET", APIPaths.user(userID), decode: UserStatus.init(json:))
    }

    public func history(_ userID: String, limit: Int? = nil) throws(DaemonClientError) -> Answer<UserHistory> {
        let query = limit.map { "?limit=\($0)" } ?? ""
        return try exchange("GET", APIPaths.history(userID) + query, decode: UserHistory.init(json:))
    }

    public func explain(_ userID: String) throws(DaemonClientError) -> Answer<UserExplanation> {
        try exchange("GET", APIPaths.explain(userID), decode: UserExplanation.init(json:))
    }

    public func pendingReminders(
        dueBefore: Date? = nil, limit: Int? = nil
    ) throws(DaemonClientError) -> Answer<[PendingReminder]> {
        var parameters: [String] = []
        if let dueBefore { parameters.append("dueBefore=\(APIPaths.percentEncode(RFC3339.format(dueBefore)))") }
        if let limit { parameters.append("limit=\(limit)") }
        let query = parameters.isEmpty ? "" : "?" + parameters.joined(separator: "&")
        return try exchange("GET", APIPaths.reminders + query, decode: PendingReminder.list(json:))
    }

    /// `GET /v1/stats` for the episodes that opened in `[since, until)` (the daemon's defaults
    /// for what is nil: the last 30 days).
    public func stats(since: Date? = nil, until: Date? = nil) throws(DaemonClientError) -> Answer<StatsReport> {
        var parameters: [String] = []
        if let since { parameters.append("since=\(APIPaths.percentEncode(RFC3339.format(since)))") }
        if let until { parameters.append("until=\(APIPaths.percentEncode(RFC3339.format(until)))") }
        let query = parameters.isEmpty ? "" : "?" + parameters.joined(separator: "&")
        return try exchange("GET", APIPaths.stats + query, decode: StatsReport.init(json:))
    }

    public func report(_ userID: String, _ report: ReportRequest) throws(DaemonClientError) -> Answer<UserStatus> {
        try exchange("POST", APIPaths.reports(userID), body: report.jsonBytes, decode: UserStatus.init(json:))
    }

    /// Forgets the user; the answer has no body (`204`).
    public func forget(_ userID: String) throws(DaemonClientError) -> Answer<Void> {
        let reply = try send("DELETE", APIPaths.user(userID), body: nil)
        return Answer(value: (), status: reply.status, body: reply.body)
    }

    /// Re-reads the daemon's configuration file; the answer is the new effective configuration.
    public func reload() throws(DaemonClientError) -> Answer<JSONValue> {
        try exchange("POST", APIPaths.reload) { json throws(ValidationError) in json }
    }

    public func deadLetters() throws(DaemonClientError) -> Answer<[DeadLetter]> {
        try exchange("GET", APIPaths.deadLetters, decode: DeadLetter.list(json:))
    }

    /// Re-queues the named dead letters (event ids), or all of them when `ids` is empty;
    /// the answer is how many were re-queued.
    public func replayDeadLetters(ids: [String]) throws(DaemonClientError) -> Answer<Int> {
        var body: [UInt8]?
        if !ids.isEmpty {
            var writer = JSONWriter()
            writer.beginObject()
            writer.member("ids", strings: ids)
            writer.endObject()
            body = writer.bytes
        }
        return try exchange("POST", APIPaths.deadLettersReplay, body: body) { json throws(ValidationError) in
            try DeadLetterReplay(json: json).replayed
        }
    }

    /// `GET /v1/users` as the NDJSON stream of every user after `after`: each part of the
    /// body goes to `onBody` as it arrives (whole lines or not; their concatenation is the
    /// stream).
    public func exportUsers(
        after: String? = nil, onBody: @escaping @Sendable ([UInt8]) -> Void
    ) throws(DaemonClientError) {
        let query = after.map { "?after=\(APIPaths.percentEncode($0))" } ?? ""
        let reply: HTTPReply
        do {
            reply = try http.stream(
                "GET", APIPaths.users + query, headers: ["Accept": UserList.streamMediaType], onBody: onBody)
        } catch {
            let kind: DaemonClientError.Kind = error.kind == .unreachable ? .unreachable : .protocolError
            throw DaemonClientError(kind: kind, socketPath: socketPath, message: error.message)
        }
        try checkStatus(reply)
    }

    /// Stores many reports at once (`POST /v1/reports`): `ndjson` holds one report a line, each
    /// with its `userID`, every line ending in a newline. One answer per non-empty line, in order.
    public func reportBatch(_ ndjson: [UInt8]) throws(DaemonClientError) -> Answer<[BulkReportAnswer]> {
        let path = APIPaths.bulkReports
        let reply = try send("POST", path, body: ndjson, headers: ["Content-Type": APIPaths.ndjsonMediaType])
        do throws(ValidationError) {
            let answers = try NDJSONLines.split(reply.body).map { line throws(ValidationError) in
                try BulkReportAnswer(json: line)
            }
            return Answer(value: answers, status: reply.status, body: reply.body)
        } catch {
            throw unexpected("POST", path, error.description)
        }
    }

    private func exchange<Value>(
        _ method: String, _ path: String, body: [UInt8]? = nil,
        decode: (JSONValue) throws(ValidationError) -> Value
    ) throws(DaemonClientError) -> Answer<Value> {
        let reply = try send(method, path, body: body)
        do {
            let json = try JSONParser.parse(reply.body)
            return Answer(value: try decode(json), status: reply.status, body: reply.body)
        } catch let error as JSONParseError {
            throw unexpected(method, path, error.description)
        } catch let error as ValidationError {
            throw unexpected(method, path, error.description)
        } catch {
            throw unexpected(method, path, "\(error)")
        }
    }

    private func unexpected(_ method: String, _ path: String, _ reason: String) -> DaemonClientError {
        DaemonClientError(
            kind: .unexpectedAnswer, socketPath: socketPath,
            message: "unexpected answer to \(method) \(path): \(reason)")
    }

    /// Sends the request and turns every non-2xx status into a `.problem` error.
    private func send(
        _ method: String, _ path: String, body: [UInt8]?, headers: [String: String] = [:]
    ) throws(DaemonClientError) -> HTTPReply {
        let reply: HTTPReply
        do {
            reply = try http.send(method, path, body: body, headers: headers)
        } catch {
            let kind: DaemonClientError.Kind = error.kind == .unreachable ? .unreachable : .protocolError
            throw DaemonClientError(kind: kind, socketPath: socketPath, message: error.message)
        }
        try checkStatus(reply)
        return reply
    }

    /// Turns a non-2xx reply into a `.problem` error.
    private func checkStatus(_ reply: HTTPReply) throws(DaemonClientError) {
        guard (200..<300).contains(reply.status) else {
            // A proxy or an older daemon may answer without problem details; the status and
            // the body's text still say something.
            let problem =
                Problem(json: reply.body)
                ?? Problem(
                    status: reply.status, title: "HTTP \(reply.status)",
                    detail: reply.text.isEmpty ? "HTTP status \(reply.status)" : reply.text)
            throw DaemonClientError(kind: .problem, socketPath: socketPath, message: problem.detail, problem: problem)
        }
    }
}
