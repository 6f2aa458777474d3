/// The API's version prefix and route templates, shared by the daemon and `remindctl`.
public enum APIPaths {
    public static let version = "v1"
    public static let users = "/v1/users"
    public static let reminders = "/v1/reminders"
    public static let status = "/v1/status"
    public static let stats = "/v1/stats"
    public static let reload = "/v1/reload"
    public static let config = "/v1/config"
    public static let deadLetters = "/v1/dead-letters"
    public static let deadLettersReplay = "/v1/dead-letters/replay"
    public static let metrics = "/metrics"
    /// The largest request body accepted (413 beyond).
    public static let maximumBodySize = 64 * 1024
    /// Many reports at once, one JSON object a line (`ndjson`).
    public static let bulkReports = "/v1/reports"
    /// The largest bulk request body and the most reports in one (413 beyond either).
    public static let maximumBulkBodySize = 16 * 1024 * 1024
    public static let maximumBulkLines = 10_000
    /// Newline-delimited JSON: the bulk route's request and answer.
    public static let ndjsonMediaType = "application/x-ndjson"

    public static func user(_ id: String) -> String { "\(users)/\(percentEncode(id))" }
    public static func reports(_ id: String) -> String { "\(user(id))/reports" }
    public static func history(_ id: String) -> String { "\(user(id))/history" }
    public static func explain(_ id: String) -> String { "\(user(id))/explain" }

    /// Encodes everything but unreserved characters, so any ID survives the trip.
    public static func percentEncode(_ text: String) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var bytes: [UInt8] = []
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                bytes.append(byte)
            default:
                bytes.append(contentsOf: [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
