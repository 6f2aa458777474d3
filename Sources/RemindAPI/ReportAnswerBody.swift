import RemindCore

/// The body of the answer to a report (single, a bulk line, or a repeat from memory): the
/// user's status with `"ask"` as its last member, the ask the app should show (docs/in-app.md)
/// or null.
public enum ReportAnswerBody {
    /// The end of an answer without an ask, in place of the status's closing brace.
    public static let noAskClosing = Array(#","ask":null}"#.utf8)

    /// The answer: `status` (an encoded object) with `ask` appended as its last member.
    public static func bytes(status: [UInt8], ask: AskAnswer?) -> [UInt8] {
        precondition(status.last == UInt8(ascii: "}"), "a status is an object")
        var out: [UInt8] = []
        out.reserveCapacity(status.count + (ask == nil ? noAskClosing.count : 300))
        out.append(contentsOf: status.dropLast())
        guard let ask else {
            out.append(contentsOf: noAskClosing)
            return out
        }
        out.append(contentsOf: #","ask":"#.utf8)
        out.append(contentsOf: ask.jsonBytes)
        out.append(UInt8(ascii: "}"))
        return out
    }
}
