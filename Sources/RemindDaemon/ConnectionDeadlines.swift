import NIOCore

/// When one HTTP connection is closed for taking too long: the timing logic of
/// ``ConnectionDeadlineHandler``, with no I/O, taking `now` and returning what to do.
///
/// - **Header deadline**: a request head must arrive within `headerTimeout` of the connection
///   opening or of the previous response, however slowly its bytes trickle in. A client that
///   connects and sends nothing, or half a head (a leaking pool, a slowloris), is closed then.
/// - **Idle timeout**: while a request body is read, a connection that sends nothing for
///   `idleTimeout` is closed.
/// - A request read whole and being answered is never cut: the deadline stops until the
///   response is written.
/// - `Connection: close` (on the request or the response, as on the `400` for a malformed head)
///   closes the connection once the response is written, whatever the client does.
/// - Graceful shutdown closes a connection waiting for a head at once, one being answered after
///   its response.
struct ConnectionDeadlines: Sendable {
    enum Phase: Equatable, Sendable {
        /// Waiting for a request head since `since`: the connection opened or a response ended.
        case awaitingHead(since: NIODeadline)
        /// A request is being read and answered; `lastRead` is when a part of it last came in.
        case exchange(bodyComplete: Bool, responseComplete: Bool, lastRead: NIODeadline)
        case closed
    }

    enum Action: Equatable, Sendable {
        /// Call ``timerFired(now:)`` at this time (a later one may be dropped for it).
        case schedule(NIODeadline)
        case close
        case none
    }

    let headerTimeout: TimeAmount
    let idleTimeout: TimeAmount
    private(set) var phase: Phase
    private(set) var closeAfterResponse = false

    init(headerTimeout: TimeAmount, idleTimeout: TimeAmount, openedAt now: NIODeadline) {
        self.headerTimeout = headerTimeout
        self.idleTimeout = idleTimeout
        self.phase = .awaitingHead(since: now)
    }

    /// When the connection is closed unless something happens first; nil while a request is answered.
    var deadline: NIODeadline? {
        switch phase {
        case .awaitingHead(let since): return since + headerTimeout
        case .exchange(bodyComplete: false, _, let lastRead): return lastRead + idleTimeout
        case .exchange, .closed: return nil
        }
    }

    /// Since when the connection waits for a request head; nil when it is busy with a request. At
    /// the connection cap those waiting longest are closed first (``ConnectionTable``).
    var awaitingHeadSince: NIODeadline? {
        if case .awaitingHead(let since) = phase { return since }
        return nil
    }

    /// The first deadline, for the connection just opened.
    func start() -> Action {
        deadline.map(Action.schedule) ?? .none
    }

    mutating func readHead(closeRequested: Bool, now: NIODeadline) -> Action {
        guard case .awaitingHead = phase else { return .none }
        closeAfterResponse = closeAfterResponse || closeRequested
        phase = .exchange(bodyComplete: false, responseComplete: false, lastRead: now)
        return .schedule(now + idleTimeout)
    }

    mutating func readBody(now: NIODeadline) -> Action {
        guard case .exchange(let bodyComplete, let responseComplete, _) = phase else { return .none }
        // The timer already set fires at the old idle deadline and is moved on from there.
        phase = .exchange(bodyComplete: bodyComplete, responseComplete: responseComplete, lastRead: now)
        return .none
    }

    mutating func readEnd(now: NIODeadline) -> Action {
        guard case .exchange(_, let responseComplete, _) = phase else { return .none }
        phase = .exchange(bodyComplete: true, responseComplete: responseComplete, lastRead: now)
        return responseComplete ? finishExchange(now: now) : .none
    }

    mutating func wroteHead(closeRequested: Bool, now: NIODeadline) -> Action {
        closeAfterResponse = closeAfterResponse || closeRequested
        // A response without a request head: the HTTP parser's 400 for a malformed one.
        if case .awaitingHead = phase {
            phase = .exchange(bodyComplete: true, responseComplete: false, lastRead: now)
        }
        return .none
    }

    mutating func wroteEnd(now: NIODeadline) -> Action {
        guard case .exchange(let bodyComplete, _, let lastRead) = phase else { return .none }
        if closeAfterResponse {
            phase = .closed
            return .close
        }
        guard bodyComplete else {
            // Answered early (a 413): the rest of the body is still read, under the idle timeout.
            phase = .exchange(bodyComplete: false, responseComplete: true, lastRead: lastRead)
            return .none
        }
        return finishExchange(now: now)
    }

    mutating func timerFired(now: NIODeadline) -> Action {
        guard let deadline else { return .none }
        guard now >= deadline else { return .schedule(deadline) }
        phase = .closed
        return .close
    }

    mutating func quiesce() -> Action {
        switch phase {
        case .awaitingHead:
            phase = .closed
            return .close
        case .exchange:
            closeAfterResponse = true
            return .none
        case .closed:
            return .none
        }
    }

    private mutating func finishExchange(now: NIODeadline) -> Action {
        phase = .awaitingHead(since: now)
        return .schedule(now + headerTimeout)
    }
}
