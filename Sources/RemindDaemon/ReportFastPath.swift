import NIOCore
import NIOHTTP1
import RemindCore

/// What ``ReportFastPathHandler`` does with a connection's request parts, as a state machine
/// with no I/O: parts and events go in, actions come out, and the handler carries them out
/// (the shape of Hummingbird's `HTTPConnectionStateHandler`).
///
/// A report it may take (a keep-alive HTTP/1.1 `POST /v1/users/{id}/reports` from a caller
/// allowed to report: the handler's `classify`) is collected whole and handed to the report
/// endpoint; every other request is passed on to Hummingbird untouched. While a request it
/// passed on is unanswered it passes every request on, and while a change is being stored it
/// holds what arrives (parts, a read, a graceful shutdown's quiesce) until the answer is
/// written, so answers keep the order of the requests on a pipelined connection.
struct ReportFastPath {
    enum State: Equatable {
        case idle
        /// Passing a request on to Hummingbird, up to its end.
        case passing
        case collecting(HTTPRequestHead, UserID, ByteBuffer?)
        /// A change is being stored; its answer is written with this HTTP version.
        case storing(HTTPVersion)
    }

    enum Action: Equatable {
        case nothing
        /// Pass these parts on to Hummingbird, in order.
        case passOn([HTTPServerRequestPart])
        /// A whole report to decide: answer it, or store it and call ``stored()``.
        case decide(HTTPRequestHead, UserID, ByteBuffer)
    }

    /// After a stored change is answered: what was held, to take up in order.
    struct Resume: Equatable {
        var parts: [HTTPServerRequestPart]
        var read: Bool
        var quiesce: Bool
    }

    private(set) var state = State.idle
    private var held: [HTTPServerRequestPart] = []
    private var readHeld = false
    private var quiesceHeld = false
    /// Requests passed on and not yet answered.
    private(set) var forwarded = 0
    let maximumBodySize: Int

    init(maximumBodySize: Int) {
        self.maximumBodySize = maximumBodySize
    }

    var isStoring: Bool {
        if case .storing = state { true } else { false }
    }

    /// A request part arrived. `classify` says whether the fast path may take a request head
    /// (the user it reports about) and is asked only when nothing passed on is unanswered.
    mutating func received(_ part: HTTPServerRequestPart, classify: (HTTPRequestHead) -> UserID?) -> Action {
        if isStoring {
            held.append(part)
            return .nothing
        }
        switch (state, part) {
        case (.idle, .head(let head)):
            if forwarded == 0, let userID = classify(head) {
                state = .collecting(head, userID, nil)
                return .nothing
            }
            state = .passing
            forwarded += 1
            return .passOn([part])
        case (.collecting(let head, let userID, var body), .body(var chunk)):
            if body == nil {
                body = chunk
            } else {
                body?.writeBuffer(&chunk)
            }
            if let body, body.readableBytes > maximumBodySize {
                // Hummingbird answers 413 and reads the rest.
                state = .passing
                forwarded += 1
                return .passOn([.head(head), .body(body)])
            }
            state = .collecting(head, userID, body)
            return .nothing
        case (.collecting(let head, let userID, let body), .end(let trailers)):
            state = .idle
            guard trailers == nil else {
                forwarded += 1
                return .passOn([.head(head)] + (body.map { [.body($0)] } ?? []) + [part])
            }
            return .decide(head, userID, body ?? ByteBuffer())
        case (.passing, .end):
            state = .idle
            return .passOn([part])
        default:
            return .passOn([part])
        }
    }

    /// The endpoint decided to store the report of the request just handed over.
    mutating func storing(_ version: HTTPVersion) {
        state = .storing(version)
    }

    /// The stored change was answered (or its peer is gone): what was held, to take up.
    mutating func stored() -> Resume {
        state = .idle
        let resume = Resume(parts: held, read: readHeld, quiesce: quiesceHeld)
        held = []
        readHeld = false
        quiesceHeld = false
        return resume
    }

    /// A response's end went out: one request passed on is answered.
    mutating func responseEnded() {
        if forwarded > 0 { forwarded -= 1 }
    }

    /// Whether a read may go to the socket now; held while a change is stored.
    mutating func read() -> Bool {
        if isStoring {
            readHeld = true
            return false
        }
        return true
    }

    /// Whether a graceful shutdown's quiesce may go on now; held while a change is stored
    /// (Hummingbird sees no request in flight and would close the connection before the answer).
    mutating func quiesce() -> Bool {
        if isStoring {
            quiesceHeld = true
            return false
        }
        return true
    }
}
