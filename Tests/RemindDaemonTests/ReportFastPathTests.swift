import NIOCore
import NIOHTTP1
import RemindCore
import Testing

@testable import RemindDaemon

/// The fast path's decisions without a channel: parts in, actions out.
struct ReportFastPathTests {
    static let user = try! UserID("u-1")
    static let post = HTTPRequestHead(version: .http1_1, method: .POST, uri: "/v1/users/u-1/reports")
    static let get = HTTPRequestHead(version: .http1_1, method: .GET, uri: "/v1/status")

    /// Takes every POST to the report route; classifying is the handler's job.
    static func classify(_ head: HTTPRequestHead) -> UserID? { head.method == .POST ? user : nil }

    /// A report's head, body chunks and end become one decision with the whole body.
    @Test func aReportIsCollectedWholeAndDecided() {
        var machine = ReportFastPath(maximumBodySize: 64)
        #expect(machine.received(.head(Self.post), classify: Self.classify) == .nothing)
        #expect(machine.received(.body(ByteBuffer(string: #"{"location":"#)), classify: Self.classify) == .nothing)
        #expect(machine.received(.body(ByteBuffer(string: #""always"}"#)), classify: Self.classify) == .nothing)
        #expect(
            machine.received(.end(nil), classify: Self.classify)
                == .decide(Self.post, Self.user, ByteBuffer(string: #"{"location":"always"}"#)))
        #expect(machine.state == .idle)
    }

    /// Another request is passed on whole, and while it is unanswered even a report is passed
    /// on behind it (answers keep the order of requests); after its answer, reports are taken again.
    @Test func whileAPassedRequestIsUnansweredEverythingIsPassedOn() {
        var machine = ReportFastPath(maximumBodySize: 64)
        #expect(machine.received(.head(Self.get), classify: Self.classify) == .passOn([.head(Self.get)]))
        #expect(machine.received(.end(nil), classify: Self.classify) == .passOn([.end(nil)]))
        #expect(machine.forwarded == 1)
        #expect(machine.received(.head(Self.post), classify: Self.classify) == .passOn([.head(Self.post)]))
        #expect(machine.received(.end(nil), classify: Self.classify) == .passOn([.end(nil)]))
        machine.responseEnded()
        machine.responseEnded()
        #expect(machine.forwarded == 0)
        #expect(machine.received(.head(Self.post), classify: Self.classify) == .nothing)
    }

    /// A body over the limit is handed on with its head, for the router's 413; so is a report
    /// with trailers.
    @Test func oversizedBodiesAndTrailersArePassedOn() {
        var machine = ReportFastPath(maximumBodySize: 4)
        _ = machine.received(.head(Self.post), classify: Self.classify)
        let body = ByteBuffer(string: "12345")
        #expect(machine.received(.body(body), classify: Self.classify) == .passOn([.head(Self.post), .body(body)]))
        #expect(machine.received(.end(nil), classify: Self.classify) == .passOn([.end(nil)]))
        machine.responseEnded()
        _ = machine.received(.head(Self.post), classify: Self.classify)
        let trailers: HTTPHeaders = ["x": "y"]
        #expect(
            machine.received(.end(trailers), classify: Self.classify) == .passOn([.head(Self.post), .end(trailers)]))
    }

    /// While a change is stored, parts, reads and a quiesce are held, and handed back in order
    /// once it is answered.
    @Test func whatArrivesWhileStoringIsHeldAndResumed() {
        var machine = ReportFastPath(maximumBodySize: 64)
        _ = machine.received(.head(Self.post), classify: Self.classify)
        _ = machine.received(.end(nil), classify: Self.classify)
        machine.storing(.http1_1)
        #expect(machine.received(.head(Self.get), classify: Self.classify) == .nothing)
        #expect(machine.received(.end(nil), classify: Self.classify) == .nothing)
        let readNow = machine.read()
        let quiesceNow = machine.quiesce()
        #expect(!readNow && !quiesceNow)
        let resume = machine.stored()
        #expect(resume == .init(parts: [.head(Self.get), .end(nil)], read: true, quiesce: true))
        #expect(machine.state == .idle)
        let readAfter = machine.read()
        let quiesceAfter = machine.quiesce()
        #expect(readAfter && quiesceAfter)
        #expect(machine.stored() == .init(parts: [], read: false, quiesce: false))
    }
}
