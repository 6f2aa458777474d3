import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import RemindCore
import ServiceLifecycle
import Synchronization

/// A real HTTP server on loopback that records what it receives and answers with the
/// statuses a test scripts.
public final class WebhookReceiver: Sendable {
    public struct Received: Sendable {
        /// Header names lower-cased.
        public var headers: [String: String]
        public var body: [UInt8]
        /// The status it was answered with.
        public var status: Int
        /// Answered 2xx at once: a slow answer may come after the sender gave up.
        public var acceptedPromptly: Bool
    }

    public let received = Mutex<[Received]>([])
    /// Statuses (with extra headers) for the next requests, in order.
    public let answers: Mutex<[(Int, [String: String])]>
    /// The status once `answers` is used up: a test flips it to stage an outage and its end.
    public let fallbackStatus = Mutex(200)
    /// How long each answer takes: a slow receiver.
    public let responseDelay = Mutex(Duration.zero)
    let port = Mutex<Int>(0)
    private let ready = AsyncSignal()

    private let requestedPort: Int

    /// `port` 0 picks a free one; a test that needs the receiver back on the same address
    /// after an outage passes the port it had.
    public init(answers: [(Int, [String: String])] = [], port: Int = 0) {
        self.answers = Mutex(answers)
        self.requestedPort = port
    }

    public var boundPort: Int { port.withLock { $0 } }

    public var url: String { "http://127.0.0.1:\(port.withLock { $0 })/hook" }

    /// Runs the server in `body` and stops it afterwards.
    public func serving<T>(_ body: () async throws -> T) async throws -> T {
        let router = Router()
        router.post("hook") { [self] request, _ -> Response in
            var request = request
            let bytes = try await request.collectBody(upTo: 1 << 20)
            var headers: [String: String] = [:]
            for field in request.headers { headers[field.name.canonicalName] = field.value }
            let delay = responseDelay.withLock { $0 }
            let fallback = fallbackStatus.withLock { $0 }
            let (status, extra) = answers.withLock { $0.isEmpty ? (fallback, [:]) : $0.removeFirst() }
            received.withLock {
                $0.append(
                    Received(
                        headers: headers, body: Array(buffer: bytes), status: status,
                        acceptedPromptly: (200..<300).contains(status) && delay == .zero))
            }
            if delay > .zero { try? await Task.sleep(for: delay) }
            var response = Response(status: .init(code: status))
            for (name, value) in extra { response.headers[HTTPField.Name(name)!] = value }
            return response
        }
        let app = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: requestedPort)),
            onServerRunning: { [self] channel in
                port.withLock { $0 = channel.localAddress?.port ?? 0 }
                ready.signal()
            })
        return try await RemindTesting.serving(app, ready: ready, label: "webhook-receiver", body)
    }
}
