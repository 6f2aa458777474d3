import Foundation
import RemindCore

/// A `webhook` sink: `POST url` with the event as body, signed per Standard Webhooks when
/// `secretFile` is set.
public struct WebhookSinkConfiguration: Sendable, Equatable {
    public static let defaultTimeoutSeconds: Double = 10
    public static let defaultMaxConcurrency = 4
    /// What the effective configuration shows instead of a header value.
    public static let redactedValue = "(redacted)"

    /// Headers the sink writes itself: framing headers that a second value would corrupt, and
    /// the ones receivers use to de-duplicate and verify, which must not be forgeable from here.
    static let reservedHeaders: Set<String> = [
        "connection", "content-length", "host", "transfer-encoding",
        "idempotency-key", "webhook-id", "webhook-signature", "webhook-timestamp",
    ]

    /// An `http` or `https` URL with a host and no user info.
    public var url: String
    /// The file holding `whsec_<base64>`. Only the path is configuration: the sink reads the
    /// secret itself, so it never appears in the effective configuration.
    public var secretFile: String?
    public var timeoutSeconds: Double
    /// Extra request headers, e.g. `Authorization` for the receiver.
    public var headers: [String: String]
    /// Requests in flight at once.
    public var maxConcurrency: Int

    public init(
        url: String,
        secretFile: String? = nil,
        timeoutSeconds: Double = defaultTimeoutSeconds,
        headers: [String: String] = [:],
        maxConcurrency: Int = defaultMaxConcurrency
    ) {
        self.url = url
        self.secretFile = secretFile
        self.timeoutSeconds = timeoutSeconds
        self.headers = headers
        self.maxConcurrency = maxConcurrency
    }

    init(reader: inout JSONObjectReader) throws(ValidationError) {
        let url = try reader.required(reader.string("url"), "url")
        if let reason = Self.urlProblem(url) {
            throw ValidationError(field: reader.fieldPath("url"), reason: reason)
        }
        let secretFile = try reader.path("secretFile")
        let timeout = try reader.positiveSeconds("timeoutSeconds")
        var headers: [String: String] = [:]
        if let object = try reader.strictObject("headers") {
            headers = try Self.headers(object, path: reader.fieldPath("headers"))
        }
        let concurrency = try reader.integer("maxConcurrency", atLeast: 1, atMost: 10_000)
        self.init(
            url: url,
            secretFile: secretFile,
            timeoutSeconds: timeout ?? Self.defaultTimeoutSeconds,
            headers: headers,
            maxConcurrency: concurrency.map { Int($0) } ?? Self.defaultMaxConcurrency
        )
    }

    static func urlProblem(_ text: String) -> String? {
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased() else {
            return "must be an http or https URL, got \"\(text)\""
        }
        guard scheme == "http" || scheme == "https" else {
            return "must be an http or https URL, got scheme \"\(scheme)\""
        }
        guard let host = components.host, !host.isEmpty else { return "must name a host" }
        if let port = components.port, !(1...65535).contains(port) {
            return "port must be a number from 1 to 65535"
        }
        // The URL is shown by `GET /v1/config`, so it must not carry a password.
        if components.user != nil || components.password != nil {
            return
                "must not contain user info; put credentials in headers (e.g. Authorization), "
                + "whose values are never shown"
        }
        return nil
    }

    static func headers(_ object: JSONObject, path: String) throws(ValidationError) -> [String: String] {
        var headers: [String: String] = [:]
        var seen: Set<String> = []
        for (name, value) in object.members {
            let field = "\(path).\(name)"
            guard !name.isEmpty, name.utf8.allSatisfy(isTokenCharacter) else {
                throw ValidationError(field: field, reason: "is not a valid HTTP header name")
            }
            let lowercased = name.lowercased()
            if reservedHeaders.contains(lowercased) {
                throw ValidationError(field: field, reason: "is set by the webhook sink itself")
            }
            // Header names are case-insensitive: `X-A` and `x-a` would be the same header twice.
            guard seen.insert(lowercased).inserted else {
                throw ValidationError(field: field, reason: "repeats a header name (names are case-insensitive)")
            }
            guard case .string(let text) = value else {
                throw ValidationError(field: field, reason: "must be a string, got \(value.typeName)")
            }
            // CR or LF would let a value start a new header or end the header block.
            guard text.utf8.allSatisfy({ $0 == 0x09 || ($0 >= 0x20 && $0 != 0x7F) }) else {
                throw ValidationError(field: field, reason: "must not contain control characters such as CR or LF")
            }
            headers[name] = text
        }
        return headers
    }

    /// RFC 9110 `tchar`.
    static func isTokenCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default: "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }

    var members: [(key: String, value: JSONValue)] {
        // Header values often are credentials (Authorization, API keys) and nothing tells which,
        // so every value is redacted; names stay, sorted so the output is deterministic.
        let headers = self.headers.keys.sorted().map { (key: $0, value: JSONValue.string(Self.redactedValue)) }
        return [
            (key: "url", value: .string(url)),
            (key: "secretFile", value: secretFile.map(JSONValue.string) ?? .null),
            (key: "timeoutSeconds", value: .double(timeoutSeconds)),
            (key: "headers", value: .object(JSONObject(headers))),
            (key: "maxConcurrency", value: .int(Int64(maxConcurrency))),
        ]
    }
}
