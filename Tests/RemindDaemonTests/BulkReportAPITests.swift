import Foundation
import HummingbirdTesting
import NIOCore
import RemindAPI
import RemindCore
import RemindStore
import RemindTesting
import Synchronization
import Testing

@testable import RemindDaemon

/// `POST /v1/reports` in process: an answer line per report line, in order; refused lines
/// refused alone; the limits; the answer lines shaped as the single report's answers.
///
/// Time is the `ManualClock`'s wall time, which starts at 2026-11-15T10:00:00Z.
@Suite(.ownThread)
struct BulkReportAPITests {
    /// The answer's lines, each a JSON object.
    static func answerLines(
        _ response: TestResponse, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> [JSONObject] {
        #expect(response.status == .ok, "\(response.text)", sourceLocation: sourceLocation)
        #expect(response.contentType == "application/x-ndjson", sourceLocation: sourceLocation)
        return try NDJSONLines.split(Array(response.body.readableBytesView)).map { line in
            guard case .object(let object) = try JSONParser.parse(line) else { throw POSIXError(.EINVAL) }
            return object
        }
    }

    /// Lines of one user apply in their order, blank lines are skipped and not counted, and
    /// each answer line is the user's status after that line, as the single report answers it.
    @Test func linesOfOneUserApplyInOrder() async throws {
        try await withAPI { _, client in
            let body = """
                {"userID":"u-1","location":"whileInUse","observedAt":"2026-11-15T09:00:00Z"}

                {"userID":"u-2","location":"always"}
                {"userID":"u-1","location":"always","observedAt":"2026-11-15T09:01:00Z"}
                {"userID":"u-1","location":"denied","observedAt":"2026-11-15T09:02:00Z"}

                """
            let lines = try Self.answerLines(try await client.postNDJSON(body))
            #expect(lines.map { $0["line"] } == [1, 2, 3, 4].map { .int($0) })
            #expect(lines.map { $0["userID"] } == ["u-1", "u-2", "u-1", "u-1"].map { .string($0) })
            #expect(lines.map { $0["status"] } == Array(repeating: .int(200), count: 4))
            #expect(lines.map { $0["alwaysAccess"] } == [false, true, true, false].map { .bool($0) })
            #expect(lines.map { $0["reportCount"] } == [1, 1, 2, 3].map { .int($0) })
            // The last line of u-1 is what GET answers now, with `line` and `status` in front and
            // the ask (none: `inApp` is off) last.
            var last = lines[3]
            #expect(last.members.last?.key == "ask" && last.members.last?.value == .null)
            last = JSONObject(last.members.filter { !["line", "status", "ask"].contains($0.key) })
            let stored = try await client.get("/v1/users/u-1")
            #expect(canonicalJSON(.object(last)) == canonicalJSON(try stored.json()))
            let history = try await client.get("/v1/users/u-1/history")
            #expect(history.text.components(separatedBy: #""location":"#).count - 1 == 3)
        }
    }

    /// Two lines of one user observed at one instant are each a change, in the order of the
    /// lines, as two single reports at that instant are: the history keeps both, newest the
    /// last received.
    @Test func tiedLinesAreEachAChange() async throws {
        try await withAPI { _, client in
            let body = """
                {"userID":"u-1","location":"whileInUse","observedAt":"2026-11-15T09:00:00Z"}
                {"userID":"u-1","location":"always","observedAt":"2026-11-15T09:00:00Z"}

                """
            _ = try Self.answerLines(try await client.postNDJSON(body))
            _ = try await client.post(
                "/v1/users/u-2/reports", #"{"location":"whileInUse","observedAt":"2026-11-15T09:00:00Z"}"#)
            _ = try await client.post(
                "/v1/users/u-2/reports", #"{"location":"always","observedAt":"2026-11-15T09:00:00Z"}"#)
            for user in ["u-1", "u-2"] {
                let history = try await client.get("/v1/users/\(user)/history").text
                let always = try #require(history.range(of: #""location":"always""#))
                let whileInUse = try #require(history.range(of: #""location":"whileInUse""#))
                #expect(always.lowerBound < whileInUse.lowerBound, "\(user): \(history)")
            }
        }
    }

    /// A bad line is refused with its problem, naming the field as a single report's would,
    /// and the other lines are stored; `userID` is echoed when it was a string.
    @Test func badLinesAreRefusedAloneNamingTheField() async throws {
        try await withAPI { _, client in
            let body = """
                {"userID":"good-1","location":"whileInUse"}
                {"userID":"bad-location","location":"sometimes"}
                not json
                {"location":"always"}
                {"userID":"a/b","location":"always"}
                {"userID":5,"location":"always"}
                [1,2]
                {"userID":"bad-time","location":"always","observedAt":"yesterday"}
                {"userID":"good-2","location":"always"}
                {"userID":"cut-off","location":"always"}
                """
            let lines = try Self.answerLines(try await client.postNDJSON(body))
            #expect(lines.count == 10)
            #expect(lines.map { $0["line"] } == (1...10).map { .int(Int64($0)) })
            #expect(lines.map { $0["status"] } == [200, 400, 400, 400, 400, 400, 400, 400, 200, 400].map { .int($0) })
            func problem(_ index: Int) -> JSONObject? {
                if case .object(let problem)? = lines[index]["problem"] { problem } else { nil }
            }
            #expect(problem(1)?["field"] == .string("location"))
            #expect(lines[1]["userID"] == .string("bad-location"))
            #expect(problem(2)?["field"] == nil)
            #expect(lines[2]["userID"] == .null)
            #expect(problem(3)?["field"] == .string("userID"))
            #expect(lines[3]["userID"] == .null)
            #expect(problem(4)?["field"] == .string("userID"))
            #expect(lines[4]["userID"] == .string("a/b"))
            #expect(problem(5)?["field"] == .string("userID"))
            #expect(lines[5]["userID"] == .null)
            #expect(problem(6)?["field"] == nil)
            #expect(problem(7)?["field"] == .string("observedAt"))
            // The last line has no newline: it may be the start of a longer line, so it is refused.
            #expect(lines[9]["userID"] == .string("cut-off"))
            #expect(
                problem(9).flatMap { if case .string(let detail)? = $0["detail"] { detail } else { nil } }?
                    .contains("newline") == true)
            #expect(try await client.get("/v1/users/good-1").status == .ok)
            #expect(try await client.get("/v1/users/good-2").status == .ok)
            for refused in ["bad-location", "bad-time", "cut-off"] {
                #expect(try await client.get("/v1/users/\(refused)").status == .notFound, "\(refused)")
            }
        }
    }

    /// More than 10,000 lines, or a body over 16 MiB, is a 413 and nothing is stored; a body
    /// that is not NDJSON is a 415; the route takes only POST.
    @Test func limitsAndMediaTypeRefuseTheWholeRequest() async throws {
        try await withAPI { _, client in
            let tooMany = (0...APIPaths.maximumBulkLines).map { #"{"userID":"u-\#($0)","location":"always"}"# + "\n" }
                .joined()
            try expectProblem(try await client.postNDJSON(tooMany), status: 413, field: nil)
            #expect(try await client.get("/v1/users/u-0").status == .notFound)

            let padding = String(repeating: " ", count: APIPaths.maximumBulkBodySize)
            let tooLarge = #"{"userID":"big","location":"always"}"# + padding + "\n"
            try expectProblem(try await client.postNDJSON(tooLarge), status: 413, field: nil)
            #expect(try await client.get("/v1/users/big").status == .notFound)

            let json = try await client.post("/v1/reports", #"{"userID":"u-1","location":"always"}"# + "\n")
            try expectProblem(json, status: 415, field: nil)
            #expect(try await client.get("/v1/users/u-1").status == .notFound)

            let get = try await client.get("/v1/reports")
            try expectProblem(get, status: 405, field: nil)
            #expect(get.headers[.allow] == "POST")

            // Exactly the limit is taken, with a charset parameter on the media type.
            let most = (0..<APIPaths.maximumBulkLines).map { #"{"userID":"m-\#($0)","location":"always"}"# + "\n" }
                .joined()
            let answered = try await client.execute(
                uri: "/v1/reports", method: .post, headers: [.contentType: "application/x-ndjson; charset=utf-8"],
                body: ByteBuffer(string: most))
            #expect(try Self.answerLines(answered).count == APIPaths.maximumBulkLines)
        }
    }

    /// An empty body (or only blank lines) is an empty answer.
    @Test func blankBodyAnswersNothing() async throws {
        try await withAPI { _, client in
            let response = try await client.postNDJSON("\n  \n\r\n")
            #expect(try Self.answerLines(response).isEmpty)
        }
    }
}

/// How often a test store was asked.
final class Asked: Sendable {
    let count = Mutex(0)
}

/// The endpoint alone, with a store that fails: the whole request is refused as a single
/// report would be, and no line is answered as stored.
struct BulkReportEndpointTests {
    static func endpoint(
        store:
            @escaping @Sendable ([(report: PermissionReport, userID: UserID)]) throws -> [Result<[UInt8]?, any Error>]
    ) -> BulkReportEndpoint {
        let reports = ReportEndpoint(
            repeats: nil, metrics: DaemonMetrics(), storeChange: { _, _, _ in nil }, noteFailure: { _ in })
        return BulkReportEndpoint(reports: reports, storeBatch: { batch, _ in try store(batch) })
    }

    static let body = Array(
        """
        {"userID":"u-1","location":"always"}
        {"userID":"u-2","location":"nowhere"}

        """.utf8)

    /// Storage unavailable (the database down, the disk full): 503 with `Retry-After`, and
    /// the store was asked once, with the valid lines only.
    @Test func storageFailureRefusesTheWholeRequest() async throws {
        let asked = Asked()
        let endpoint = Self.endpoint { batch in
            asked.count.withLock { $0 += 1 }
            #expect(batch.map(\.userID.rawValue) == ["u-1"])
            throw StoreError.databaseUnavailable("the test says so")
        }
        let answer = await endpoint.answer(body: Self.body, receivedAt: Fixtures.date("2026-11-15T10:00:00Z"))
        #expect(answer.status == 503)
        #expect(answer.retryAfter != nil)
        #expect(answer.contentType == "application/problem+json")
        #expect(asked.count.withLock { $0 } == 1)
    }

    /// A line whose store failed alone (a row the database refused) gets its problem; a line
    /// of the same batch that was stored is answered as stored.
    @Test func lineTheStoreRefusedIsRefusedAlone() async throws {
        let body = Array(
            """
            {"userID":"u-1","location":"always"}
            {"userID":"u-2","location":"always"}

            """.utf8)
        let endpoint = Self.endpoint { _ in
            [.success(Array(#"{"userID":"u-1"}"#.utf8)), .failure(StoreError.database("the test refuses this row"))]
        }
        let answer = await endpoint.answer(body: body, receivedAt: Fixtures.date("2026-11-15T10:00:00Z"))
        #expect(answer.status == 200)
        let lines = NDJSONLines.split(answer.body).map { String(decoding: $0, as: UTF8.self) }
        #expect(lines.first == #"{"line":1,"status":200,"userID":"u-1"}"#)
        #expect(lines.count == 2)
        #expect(lines.last?.hasPrefix(#"{"line":2,"userID":"u-2","status":500,"problem":{"#) == true)
    }
}
