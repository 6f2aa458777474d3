import Foundation
import Hummingbird
import RemindCore

/// Reading a request's query parameters, each refused with a 400 naming it.
enum QueryParameters {
    /// An integer in `range`; nil when absent.
    static func integer(_ request: Request, _ name: String, range: ClosedRange<Int>) throws(ValidationError) -> Int? {
        guard let text = request.uri.queryParameters[name[...]] else { return nil }
        guard let value = Int(text), range.contains(value) else {
            throw ValidationError(
                field: name, reason: "must be an integer from \(range.lowerBound) to \(range.upperBound)")
        }
        return value
    }

    /// An RFC 3339 timestamp; nil when absent.
    static func timestamp(_ request: Request, _ name: String) throws(ValidationError) -> Date? {
        guard let text = request.uri.queryParameters[name[...]] else { return nil }
        guard let date = RFC3339.parse(String(text)) else {
            throw ValidationError(field: name, reason: "must be an RFC 3339 timestamp such as 2026-11-01T00:00:00Z")
        }
        return date
    }
}
