import Foundation
import NIOCore
import NIOEmbedded
import NIOHTTP1
import RemindCore
import RemindStore
import Testing

@testable import RemindDaemon

/// `ReportFastPathHandler` storing a change itself, on a channel whose store is held at a gate:
/// what arrives meanwhile (a pipelined request, a graceful shutdown's quiesce) waits until the
/// answer is written, and a store error is answered 503, never handed on to be stored again.
struct ReportFastPathHandlerTests {
    /// What the handler passes on towards Hummingbird, in order.
    final class Downstream: ChannelInboundHandler, @unchecked Sendable {
        typealias InboundIn = HTTPServerRequestPart
        var seen: [String] = []
        /// Signalled at each request's end.
        let ends = AsyncStream<Void>.makeStream()

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head(let head): seen.append("head \(head.method) \(head.uri)")
            case .body(let body): seen.append("body \(body.readableBytes)")
            case .end:
                seen.append("end")
                ends.continuation.yield()
            }
        }

        func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
            if event is ChannelShouldQuiesceEvent { seen.append("quiesce") }
        }
    }

    /// A store that waits for `open` and then answers with `result`.
    final class Gate: Sendable {
        let entered = AsyncStream<Void>.makeStream()
        let opened = AsyncStream<Result<[UInt8]?, StoreError>>.makeStream()

        func store() async throws -> [UInt8]? {
            entered.continuation.yield()
            for await result in opened.stream { return try result.get() }
            throw CancellationError()
        }
    }

    func channel(_ gate: Gate) async throws -> (NIOAsyncTestingChannel, Downstream) {
        let endpoint = ReportEndpoint(
            repeats: nil, metrics: DaemonMetrics(), storeChange: { _, _, _ in try await gate.store() },
            noteFailure: { _ in })
        let handler = ReportFastPathHandler(
            endpoint: endpoint, access: .open, peer: nil, wallClock: { Date(timeIntervalSince1970: 1_800_000_000) })
        let downstream = Downstream()
        let channel = NIOAsyncTestingChannel()
        try await channel.pipeline.addHandlers([handler, downstream])
        // Active, as a connection is.
        try await channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1))
        return (channel, downstream)
    }

    /// What `body` gives, or nil after `seconds` (the suite's other tests may hold this 2-core
    /// machine's pool threads for a while).
    func within<T: Sendable>(_ seconds: Int = 120, _ body: @escaping @Sendable () async -> T?) async -> T? {
        await withTaskGroup(of: T?.self) { group in
            group.addTask { await body() }
            group.addTask {
                try? await Task.sleep(for: .seconds(seconds))
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first
        }
    }

    /// The next response part written, or nil after the deadline.
    func nextWrite(_ channel: NIOAsyncTestingChannel) async -> HTTPServerResponsePart? {
        await within { try? await channel.waitForOutboundWrite(as: HTTPServerResponsePart.self) }
    }

    /// A channel with a report of `user` posted, its change now held at the gate.
    func storingChange(of user: String) async throws -> (Gate, NIOAsyncTestingChannel, Downstream) {
        let gate = Gate()
        let (channel, downstream) = try await channel(gate)
        let body = #"{"location":"always"}"#
        var head = HTTPRequestHead(version: .http1_1, method: .POST, uri: "/v1/users/\(user)/reports")
        head.headers.add(name: "Content-Length", value: String(body.utf8.count))
        try await channel.writeInbound(HTTPServerRequestPart.head(head))
        try await channel.writeInbound(HTTPServerRequestPart.body(ByteBuffer(string: body)))
        try await channel.writeInbound(HTTPServerRequestPart.end(nil))
        var entered = gate.entered.stream.makeAsyncIterator()
        await entered.next()
        return (gate, channel, downstream)
    }

    @Test func whatArrivesWhileAChangeIsStoredWaitsForItsAnswer() async throws {
        let (gate, channel, downstream) = try await storingChange(of: "u-1")
        // A pipelined GET and a graceful shutdown arrive while the change is being stored.
        try await channel.writeInbound(
            HTTPServerRequestPart.head(HTTPRequestHead(version: .http1_1, method: .GET, uri: "/v1/status")))
        try await channel.writeInbound(HTTPServerRequestPart.end(nil))
        channel.pipeline.fireUserInboundEventTriggered(ChannelShouldQuiesceEvent())
        try await channel.testingEventLoop.executeInContext {
            #expect(downstream.seen.isEmpty)
        }
        gate.opened.continuation.yield(.success(Array(#"{"userID":"u-1"}"#.utf8)))
        let head = await nextWrite(channel)
        guard case .head(let response)? = head else {
            Issue.record("expected a response head, got \(String(describing: head))")
            return
        }
        #expect(response.status == .ok)
        #expect(response.headers["content-type"] == ["application/json"])
        guard case .body(.byteBuffer(let body))? = await nextWrite(channel) else {
            Issue.record("expected a body")
            return
        }
        #expect(String(buffer: body) == #"{"userID":"u-1"}"#)
        // Then the GET goes on, and only after it the quiesce.
        try await channel.testingEventLoop.executeInContext {
            #expect(downstream.seen == ["head GET /v1/status", "end", "quiesce"])
        }
    }

    @Test func aStoreErrorIsAnswered503AndNothingIsPassedOn() async throws {
        let (gate, channel, downstream) = try await storingChange(of: "u-2")
        gate.opened.continuation.yield(.failure(.databaseUnavailable("the test says so")))
        guard case .head(let response)? = await nextWrite(channel) else {
            Issue.record("expected a response head")
            return
        }
        #expect(response.status == .serviceUnavailable)
        #expect(response.headers["content-type"] == ["application/problem+json"])
        #expect(response.headers["retry-after"] == ["5"])
        guard case .body(.byteBuffer(let body))? = await nextWrite(channel) else {
            Issue.record("expected a body")
            return
        }
        #expect(String(buffer: body).contains("nothing was changed, retry later"))
        let seen = try await channel.testingEventLoop.executeInContext { downstream.seen }
        #expect(seen.isEmpty)
    }
}
