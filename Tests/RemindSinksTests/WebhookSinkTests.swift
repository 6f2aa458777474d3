import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import RemindCore
import RemindSinks
import RemindTesting
import Synchronization
import Testing

struct WebhookSinkTests {
    static let secretBytes = Data((0..<24).map { UInt8($0) })
    static let secret = "  whsec_" + secretBytes.base64EncodedString() + "\n"
    /// The request deadline of the tests that are not about deadlines: the suite's first
    /// 30–40 s on this 2-core machine hold the pool threads that run the in-process receiver,
    /// and the sink's default 10 s ran out twice in a session (`HTTPClientError.deadlineExceeded`).
    static let patientTimeout = 120.0

    /// A signed POST: the event as body, Idempotency-Key and webhook-id the event id, and a
    /// v1 signature over "id.timestamp.body" that the receiver can verify with the secret.
    @Test func signedPostWithIdempotencyKey() async throws {
        let receiver = WebhookReceiver(answers: [(204, [:])])
        let event = FileSinkTests.event(1)
        try await receiver.serving {
            let sink = try WebhookSink(
                url: receiver.url, secret: Self.secret, timeoutSeconds: Self.patientTimeout,
                headers: ["X-App": "trips"],
                now: { Date(timeIntervalSince1970: 1_795_000_000) })
            #expect(try await sink.deliver(event) == .delivered)
        }
        let request = try #require(receiver.received.withLock { $0.first })
        #expect(request.body == event.bytes)
        #expect(request.headers["idempotency-key"] == event.id)
        #expect(request.headers["webhook-id"] == event.id)
        #expect(request.headers["webhook-timestamp"] == "1795000000")
        #expect(request.headers["x-app"] == "trips")
        #expect(request.headers["content-type"] == "application/json")
        let signed = Array("\(event.id).1795000000.".utf8) + event.bytes
        let expected = Data(HMAC<SHA256>.authenticationCode(for: signed, using: SymmetricKey(data: Self.secretBytes)))
        #expect(request.headers["webhook-signature"] == "v1," + expected.base64EncodedString())
    }

    /// 5xx, 408 and 429 are retryable (429's Retry-After is passed on); other 4xx are
    /// permanent; without a secret nothing is signed.
    @Test func statusCodesDecideRetry() async throws {
        let receiver = WebhookReceiver(answers: [(503, [:]), (429, ["Retry-After": "7"]), (408, [:]), (400, [:])])
        var failures: [SinkError] = []
        try await receiver.serving {
            let sink = try WebhookSink(url: receiver.url, timeoutSeconds: Self.patientTimeout)
            for _ in 0..<4 {
                do {
                    #expect(try await sink.deliver(FileSinkTests.event(1)) == .delivered)
                } catch let error as SinkError {
                    failures.append(error)
                }
            }
        }
        #expect(failures.map(\.retryable) == [true, true, true, false])
        #expect(failures[1].retryAfter == 7)
        #expect(failures[3].message.contains("HTTP 400"))
        #expect(receiver.received.withLock { $0.allSatisfy { $0.headers["webhook-signature"] == nil } })
    }

    /// Nothing listening is a retryable failure; a malformed secret is refused up front.
    @Test func connectionRefusedIsRetryableAndBadSecretRefused() async throws {
        let sink = try WebhookSink(url: "http://127.0.0.1:9/hook", timeoutSeconds: 2)
        do {
            #expect(try await sink.deliver(FileSinkTests.event(1)) == .delivered)
            Issue.record("delivered to a closed port")
        } catch {
            #expect(error.retryable)
        }
        #expect(throws: SinkError.self) { try WebhookSink(url: "http://x/", secret: "not-a-whsec") }
    }
}
