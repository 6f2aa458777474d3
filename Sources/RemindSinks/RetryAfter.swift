import Foundation

/// The `Retry-After` header (RFC 9110 §10.2.3): how long a receiver asks to be left alone.
/// The webhook and push sinks honour it as a minimum wait.
public enum RetryAfter {
    /// The header as seconds from now: a number of seconds, or an HTTP date; nil when neither.
    public static func seconds(_ value: String) -> Double? {
        if let seconds = Double(value.trimmingCharacters(in: .whitespaces)) { return max(0, seconds) }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        return formatter.date(from: value).map { max(0, $0.timeIntervalSinceNow) }
    }
}
