import Foundation
import RemindCore

/// A user's encoded status with the three values a repeated report moves left open: the
/// permissions' `observedAt`, `reportCount` and `lastReportAt`. A repeat is answered by
/// splicing those into the bytes, without the record or a JSON writer.
///
/// `render` with the status's own values gives exactly `UserStatus.jsonBytes`; it runs under
/// a lock on the daemon's repeat path, so it allocates nothing but the answer.
public struct StatusTemplate: Sendable {
    /// The status it was made from, encoded.
    public let bytes: [UInt8]
    /// The status's newest observation time.
    public let observedAt: Date
    /// Byte ranges of the three values in `bytes`, in order.
    private let observedAtRange: Range<Int32>
    private let reportCountRange: Range<Int32>
    private let lastReportAtRange: Range<Int32>

    public init(_ status: UserStatus) {
        let bytes = status.jsonBytes
        self.bytes = bytes
        self.observedAt = status.observedAt
        // The members appear once each, as keys of the status in this order (`UserStatus.write`);
        // a string value cannot hold them unescaped.
        let observed = Self.stringValue(after: #""observedAt":""#, in: bytes, from: 0)
        let count = Self.numberValue(after: #""reportCount":"#, in: bytes, from: observed.upperBound)
        let last = Self.stringValue(after: #""lastReportAt":""#, in: bytes, from: count.upperBound)
        observedAtRange = Int32(observed.lowerBound)..<Int32(observed.upperBound)
        reportCountRange = Int32(count.lowerBound)..<Int32(count.upperBound)
        lastReportAtRange = Int32(last.lowerBound)..<Int32(last.upperBound)
    }

    /// The status with these three values.
    public func render(observedAt observed: Date, reportCount count: Int, lastReportAt last: Date) -> [UInt8] {
        splice(observed, count, last, closing: nil)
    }

    /// The answer to a repeat: the status with these three values and no ask
    /// (`ReportAnswerBody`), in one pass.
    public func renderAnswer(observedAt observed: Date, reportCount count: Int, lastReportAt last: Date) -> [UInt8] {
        splice(observed, count, last, closing: ReportAnswerBody.noAskClosing)
    }

    /// The bytes with the three values in, and `closing` in place of the final brace.
    private func splice(_ observed: Date, _ count: Int, _ last: Date, closing: [UInt8]?) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + 8 + (closing?.count ?? 0))
        out.append(contentsOf: bytes[..<Int(observedAtRange.lowerBound)])
        out.append(contentsOf: RFC3339.format(observed).utf8)
        out.append(contentsOf: bytes[Int(observedAtRange.upperBound)..<Int(reportCountRange.lowerBound)])
        out.append(contentsOf: String(count).utf8)
        out.append(contentsOf: bytes[Int(reportCountRange.upperBound)..<Int(lastReportAtRange.lowerBound)])
        out.append(contentsOf: RFC3339.format(last).utf8)
        if let closing {
            out.append(contentsOf: bytes[Int(lastReportAtRange.upperBound)..<(bytes.count - 1)])
            out.append(contentsOf: closing)
        } else {
            out.append(contentsOf: bytes[Int(lastReportAtRange.upperBound)...])
        }
        return out
    }

    private static func find(_ key: String, in bytes: [UInt8], from start: Int) -> Int {
        let needle = Array(key.utf8)
        var index = start
        while index + needle.count <= bytes.count {
            if bytes[index] == needle[0], bytes[index..<(index + needle.count)].elementsEqual(needle) {
                return index + needle.count
            }
            index += 1
        }
        preconditionFailure("status without \(key)")
    }

    /// The range of a string value's characters (between its quotes) after `key`.
    private static func stringValue(after key: String, in bytes: [UInt8], from start: Int) -> Range<Int> {
        let begin = find(key, in: bytes, from: start)
        let end = bytes[begin...].firstIndex(of: UInt8(ascii: "\""))!
        return begin..<end
    }

    /// The range of a number value after `key`.
    private static func numberValue(after key: String, in bytes: [UInt8], from start: Int) -> Range<Int> {
        let begin = find(key, in: bytes, from: start)
        let end = bytes[begin...].firstIndex {
            !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) && $0 != UInt8(ascii: "-")
        }!
        return begin..<end
    }
}
