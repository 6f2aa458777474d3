import AsyncHTTPClient
import Crypto
import Foundation
import NIOCore
import NIOHTTP1
import RemindCore

/// POSTs each event to a URL, with `Idempotency-Key: <event id>` and, when a secret is
/// configured, Standard Webhooks signing (`webhook-id`, `webhook-timestamp`,
/// `webhook-signature: v1,<base64 HMAC-SHA256 of "id.timestamp.body">`).
///
/// 2xx is delivered. 408, 429, 5xx, connection errors and timeouts are retried (honouring
/// `Retry-After`); any other 4xx is permanent, and the event goes to the dead letters at once.
/// TLS certificates are verified (AsyncHTTPClient's default).
public struct WebhookSink: EventSink {
    public let name: String
    public var type: String { "webhook" }
    public let url: String
    public let timeoutSeconds: Double
    public let headers: [(String, String)]
    /// The signing key: the bytes `whsec_<base64>` decodes to; nil signs nothing.
    private let key: SymmetricKey?
    private let client: HTTPClient
    private let now: @Sendable () -> Date

    public init(
        name: String = "webhook", url: String, secret: String? = nil, timeoutSeconds: Double = 10,
        headers: [String: String] = [:], client: HTTPClient = .shared, now: @escaping @Sendable () -> Date = { Date() }
    ) throws(SinkError) {
        self.name = name
        self.url = url
        self.timeoutSeconds = timeoutSeconds
        self.headers = headers.sorted { $0.key < $1.key }
        self.client = client
        self.now = now
        if let secret {
            guard let decoded = Self.decodeSecret(secret) else {
                throw SinkError("the webhook secret must be whsec_ followed by base64", retryable: false)
            }
            key = SymmetricKey(data: decoded)
        } else {
            key = nil
        }
    }

    /// `whsec_<base64>` with surrounding whitespace ignored.
    static func decodeSecret(_ text: String) -> Data? {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard trimmed.hasPrefix("whsec_") else { return nil }
        return Data(base64Encoded: String(trimmed.dropFirst(6)))
    }

    /// The Standard Webhooks signature header value for an event sent at `timestamp`.
    public static func signature(key: SymmetricKey, id: String, timestamp: Int64, body: [UInt8]) -> String {
        var signed = Array("\(id).\(timestamp).".utf8)
        signed += body
        let mac = HMAC<SHA256>.authenticationCode(for: signed, using: key)
        return "v1," + Data(mac).base64EncodedString()
    }

    public func deliver(_ event: OutboxEvent) async throws(SinkError) -> SinkOutcome {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.headers.add(name: "User-Agent", value: "remindd")
        request.headers.add(name: "Idempotency-Key", value: event.id)
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let key {
            let timestamp = Int64(now().timeIntervalSince1970)
            request.headers.add(name: "webhook-id", value: event.id)
            request.headers.add(name: "webhook-timestamp", value: String(timestamp))
            request.headers.add(
                name: "webhook-signature",
                value: Self.signature(key: key, id: event.id, timestamp: timestamp, body: event.bytes))
        }
        request.body = .bytes(ByteBuffer(bytes: event.bytes))
        let response: HTTPClientResponse
        do {
            response = try await client.execute(request, timeout: .milliseconds(Int64(timeoutSeconds * 1000)))
        } catch {
            throw SinkError("POST \(url): \(error)")
        }
        // Read (a bounded part of) the body so the connection can be reused, and for the log.
        let body = (try? await response.body.collect(upTo: 4096)).map { String(buffer: $0) } ?? ""
        let status = Int(response.status.code)
        if (200..<300).contains(status) { return .delivered }
        let detail = "POST \(url): HTTP \(status)" + (body.isEmpty ? "" : ": \(body.prefix(200))")
        let retryable = status == 408 || status == 429 || status >= 500
        throw SinkError(
            detail, retryable: retryable,
            retryAfter: retryable ? response.headers.first(name: "Retry-After").flatMap(RetryAfter.seconds) : nil)
    }

}
