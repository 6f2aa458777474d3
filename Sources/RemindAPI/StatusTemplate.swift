import Foundation
import RemindCore

/// A user's encoded status with the three values a repeated report moves left open: the
/// permissions' `observedAt`, `reportCount` and `lastReportAt`. A repeat is answered by
/// splicing those into the bytes, without the record or a JSON writer.
///
/// `render` with the status's own values gives exactly `UserStatus.jsonBytes`.
public struct StatusTemplate: Sendable {
    /// The status it was made from, encoded.
    public let bytes: [UInt8]
    /// Byte ranges of the three values in `bytes`, in order.
    private let observedAt: Range<Int32>
    private let reportCount: Range<Int32>
    private let lastReportAt: Range<Int32>

    public init(_ status: UserStatus) {
        let bytes = status.jsonBytes
        self.bytes = bytes
        // The members appear once each, as keys of the status in this order (`UserStatus.write`);
        // a string value cannot hold them unescaped.
        let observed = Self.stringValue(after: #""observedAt":""#, in: bytes, from: 0)
        let count = Self.numberValue(after: #""reportCount":"#, in: bytes, from: observed.upperBound)
        let last = Self.stringValue(after: #""lastReportAt":""#, in: bytes, from: count.upperBound)
        observedAt = Int32(observed.lowerBound)..<Int32(observed.upperBound)
        reportCount = Int32(count.lowerBound)..<Int32(count.upperBound)
        lastReportAt = Int32(last.lowerBound)..<Int32(last.upperBound)
    }

    /// The status with these three values.
    public func render(observedAt observed: Date, reportCount count: Int, lastReportAt last: Date) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + 8)
        out.append(contentsOf: bytes[..<Int(observedAt.lowerBound)])
        out.append(contentsOf: RFC3339.format(observed).utf8)
        out.append(contentsOf: bytes[Int(observedAt.upperBound)..<Int(reportCount.lowerBound)])
        out.append(contentsOf: String(count).utf8)
        out.append(contentsOf: bytes[Int(reportCount.upperBound)..<Int(lastReportAt.lowerBound)])
        out.append(contentsOf: RFC3339.format(last).utf8)
        out.append(contentsOf: bytes[Int(lastReportAt.upperBound)...])
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
