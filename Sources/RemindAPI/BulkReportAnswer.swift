import RemindCore

/// One line of the answer to `POST /v1/reports`: the report on that line of the request was
/// stored (`status` 200, with the user's status) or refused (`problem`).
///
/// `line` counts the request's non-empty lines from 1; `userID` is null when the line had
/// none or it was not a string. An accepted line is the single report's answer (the user
/// status) with `line` and `status` in front, so a client reads it as one or the other.
public struct BulkReportAnswer: Sendable, Equatable {
    public var line: Int
    public var userID: String?
    public var status: Int
    /// Why the line was refused; nil when it was stored.
    public var problem: Problem?

    public init(line: Int, userID: String?, status: Int, problem: Problem? = nil) {
        self.line = line
        self.userID = userID
        self.status = status
        self.problem = problem
    }

    /// The line of a stored report, from the single report's answer body (a JSON object).
    public static func accepted(line: Int, statusJSON: [UInt8], into bytes: inout [UInt8]) {
        bytes += #"{"line":"#.utf8
        bytes += String(line).utf8
        bytes += #","status":200"#.utf8
        // The status object's members follow those two.
        let members = statusJSON.dropFirst()
        if members.first != UInt8(ascii: "}") { bytes.append(UInt8(ascii: ",")) }
        bytes += members
        bytes.append(UInt8(ascii: "\n"))
    }

    /// The line of a refused report.
    public static func refused(line: Int, userID: String?, problem: Problem, into bytes: inout [UInt8]) {
        var writer = JSONWriter()
        writer.beginObject()
        writer.member("line", line)
        writer.member("userID", userID)
        writer.member("status", problem.status)
        writer.key("problem")
        writer.raw(problem.jsonBytes)
        writer.endObject()
        bytes += writer.bytes
        bytes.append(UInt8(ascii: "\n"))
    }

    /// Reads one answer line.
    public init(json bytes: some Collection<UInt8>) throws(ValidationError) {
        let value: JSONValue
        do {
            value = try JSONParser.parse(bytes)
        } catch {
            throw ValidationError(field: "", reason: "answer line is not valid JSON (\(error))")
        }
        var reader = try AnswerReader(value)
        line = try reader.int("line")
        userID = try reader.optionalString("userID")
        status = try reader.int("status")
        problem = nil
        if case .object(let object) = value, let problemValue = object["problem"] {
            var writer = JSONWriter()
            writer.value(problemValue)
            guard let problem = Problem(json: writer.bytes) else {
                throw ValidationError(field: "problem", reason: "is not a problem object")
            }
            self.problem = problem
        }
    }
}
