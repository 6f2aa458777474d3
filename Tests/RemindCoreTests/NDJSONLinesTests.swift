import RemindAPI
import RemindCore
import Testing

/// NDJSON as the bulk route reads and answers it.
struct NDJSONLinesTests {
    /// Blank lines (whitespace and CRLF's `\r` only) are no lines; the last line's slice ends at
    /// the end of the bytes exactly when it had no newline.
    @Test func blankLinesAreSkippedAndTheLastLineKnowsItsEnd() {
        let bytes = Array("a\n\n  \r\nb\r\n\t\nc".utf8)
        let lines = NDJSONLines.split(bytes)
        #expect(lines.map { String(decoding: $0, as: UTF8.self) } == ["a", "b\r", "c"])
        #expect(lines.map { $0.endIndex < bytes.endIndex } == [true, true, false])
        #expect(NDJSONLines.split(Array("x\n".utf8)).map { $0.endIndex } == [1])
        #expect(NDJSONLines.split([]).isEmpty)
    }

    /// An accepted line is the status object with `line` and `status` in front; a refused one
    /// carries its problem; both read back.
    @Test func answerLinesEncodeAndDecode() throws {
        var bytes: [UInt8] = []
        BulkReportAnswer.accepted(line: 1, statusJSON: Array(#"{"userID":"u-1","reportCount":2}"#.utf8), into: &bytes)
        let problem = Problem(status: 400, title: "Invalid request", detail: "userID is required", field: "userID")
        BulkReportAnswer.refused(line: 2, userID: nil, problem: problem, into: &bytes)
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text.hasPrefix(#"{"line":1,"status":200,"userID":"u-1","reportCount":2}"# + "\n"))
        let lines = NDJSONLines.split(bytes)
        #expect(try BulkReportAnswer(json: lines[0]) == BulkReportAnswer(line: 1, userID: "u-1", status: 200))
        #expect(
            try BulkReportAnswer(json: lines[1])
                == BulkReportAnswer(line: 2, userID: nil, status: 400, problem: problem))
    }
}
