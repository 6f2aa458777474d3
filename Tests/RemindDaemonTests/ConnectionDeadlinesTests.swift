import NIOCore
import Testing

@testable import RemindDaemon

/// The timing of one connection, driven by an injected `now`: no event loop, no sleeping.
struct ConnectionDeadlinesTests {
    static let opened = NIODeadline.uptimeNanoseconds(1_000_000_000)

    static func at(_ seconds: Double) -> NIODeadline {
        opened + .nanoseconds(Int64(seconds * 1e9))
    }

    static func machine() -> ConnectionDeadlines {
        ConnectionDeadlines(headerTimeout: .seconds(5), idleTimeout: .seconds(10), openedAt: opened)
    }

    /// A connection that sends no complete head is closed at the header deadline, not before.
    @Test func silentConnectionIsClosedAtTheHeaderDeadline() {
        var machine = Self.machine()
        let action1 = machine.start()
        #expect(action1 == .schedule(Self.at(5)))
        #expect(machine.awaitingHeadSince == Self.opened)
        let action2 = machine.timerFired(now: Self.at(4.9))
        #expect(action2 == .schedule(Self.at(5)))
        let action3 = machine.timerFired(now: Self.at(5))
        #expect(action3 == .close)
        #expect(machine.phase == .closed)
    }

    /// A head that arrives in time moves the deadline to the idle timeout for the body; a body
    /// part pushes it on; once the request is read whole and answered nothing cuts it.
    @Test func requestReadInTimeIsNeverCutWhileAnswered() {
        var machine = Self.machine()
        let action4 = machine.readHead(closeRequested: false, now: Self.at(1))
        #expect(action4 == .schedule(Self.at(11)))
        #expect(machine.awaitingHeadSince == nil)
        let action5 = machine.readBody(now: Self.at(8))
        #expect(action5 == .none)
        let action6 = machine.timerFired(now: Self.at(11))
        #expect(action6 == .schedule(Self.at(18)))
        let action7 = machine.readEnd(now: Self.at(9))
        #expect(action7 == .none)
        #expect(machine.deadline == nil)
        let action8 = machine.timerFired(now: Self.at(100))
        #expect(action8 == .none)
        let action9 = machine.wroteHead(closeRequested: false, now: Self.at(120))
        #expect(action9 == .none)
        let action10 = machine.wroteEnd(now: Self.at(121))
        #expect(action10 == .schedule(Self.at(126)))
        #expect(machine.awaitingHeadSince == Self.at(121))
    }

    /// A kept-alive connection must send its next head within the header deadline of the last
    /// response.
    @Test func keptAliveConnectionIsClosedAtTheHeaderDeadlineAfterAResponse() {
        var machine = Self.machine()
        _ = machine.readHead(closeRequested: false, now: Self.at(1))
        _ = machine.readEnd(now: Self.at(1))
        _ = machine.wroteHead(closeRequested: false, now: Self.at(2))
        let action11 = machine.wroteEnd(now: Self.at(2))
        #expect(action11 == .schedule(Self.at(7)))
        let action12 = machine.timerFired(now: Self.at(7))
        #expect(action12 == .close)
    }

    /// A body that stops arriving is cut after the idle timeout, even after an early answer.
    @Test func stalledBodyIsClosedAfterTheIdleTimeout() {
        var machine = Self.machine()
        _ = machine.readHead(closeRequested: false, now: Self.at(1))
        _ = machine.wroteHead(closeRequested: false, now: Self.at(1))
        let action13 = machine.wroteEnd(now: Self.at(1))
        #expect(action13 == .none)
        let action14 = machine.timerFired(now: Self.at(10.9))
        #expect(action14 == .schedule(Self.at(11)))
        let action15 = machine.timerFired(now: Self.at(11))
        #expect(action15 == .close)
    }

    /// `Connection: close` on the request, or on the response (the 400 for a malformed head,
    /// which comes without any request head), closes the connection once the response is out.
    @Test(arguments: [(true, false), (false, true)])
    func connectionCloseClosesAfterTheResponse(onRequest: Bool, onResponse: Bool) {
        var machine = Self.machine()
        if onRequest {
            _ = machine.readHead(closeRequested: true, now: Self.at(1))
            _ = machine.readEnd(now: Self.at(1))
        }
        let action16 = machine.wroteHead(closeRequested: onResponse, now: Self.at(2))
        #expect(action16 == .none)
        let action17 = machine.wroteEnd(now: Self.at(2))
        #expect(action17 == .close)
        #expect(machine.phase == .closed)
    }

    /// Graceful shutdown closes a waiting connection at once and a busy one after its response.
    @Test func quiesceClosesIdleAtOnceAndBusyAfterTheResponse() {
        var idle = Self.machine()
        let action18 = idle.quiesce()
        #expect(action18 == .close)
        var busy = Self.machine()
        _ = busy.readHead(closeRequested: false, now: Self.at(1))
        _ = busy.readEnd(now: Self.at(1))
        let action19 = busy.quiesce()
        #expect(action19 == .none)
        _ = busy.wroteHead(closeRequested: false, now: Self.at(2))
        let action20 = busy.wroteEnd(now: Self.at(2))
        #expect(action20 == .close)
    }
}

/// Which connection makes room at the cap.
struct ConnectionTableTests {
    static func at(_ seconds: Int64) -> NIODeadline { .uptimeNanoseconds(UInt64(seconds) * 1_000_000_000) }

    /// At the cap a new connection is accepted and the one waiting longest for a head is closed;
    /// busy ones are never chosen; with every slot busy the listener stops accepting.
    @Test func oldestIdleConnectionMakesRoomAtTheCap() {
        var table = ConnectionTable<Int>(capacity: 3)
        for id in 1...3 {
            let action21 = table.accept()
            #expect(action21 == [])
            table.update(id, awaitingHeadSince: Self.at(Int64(10 - id)))
        }
        table.update(3, awaitingHeadSince: nil)
        #expect(table.isAccepting)
        // 2 has waited since 8, 1 since 9: 2 goes first.
        let action22 = table.accept()
        #expect(action22 == [2])
        table.update(4, awaitingHeadSince: Self.at(20))
        let action23 = table.accept()
        #expect(action23 == [1])
        table.update(5, awaitingHeadSince: nil)
        table.update(4, awaitingHeadSince: nil)
        // 1 and 2 are closing; 3, 4 and 5 are busy: nothing to close, and nothing more to accept
        // once the closed ones are gone.
        table.remove(1)
        table.closed()
        table.remove(2)
        table.closed()
        #expect(!table.isAccepting)
        table.update(4, awaitingHeadSince: Self.at(30))
        #expect(table.isAccepting)
    }

    /// Connections accepted but not yet registered count as room: a burst of new clients does not
    /// stop the listener.
    @Test func unregisteredConnectionsKeepTheListenerAccepting() {
        var table = ConnectionTable<Int>(capacity: 2)
        let action24 = table.accept()
        #expect(action24 == [])
        let action25 = table.accept()
        #expect(action25 == [])
        #expect(table.isAccepting)
        table.update(1, awaitingHeadSince: nil)
        table.update(2, awaitingHeadSince: nil)
        #expect(!table.isAccepting)
    }
}

/// The HTTP/0.9 check on the first request line.
struct RequestLineCheckTests {
    @Test(arguments: [
        ("GET /\r\n", RequestLineCheck.Verdict.noVersion),
        ("GET /v1/status\n", .noVersion),
        ("\r\nGET / HTTP/1.1\r\n", .hasVersion),
        ("GET /v1/status HTTP/1.1\r\nHost: x\r\n\r\n", .hasVersion),
        ("GET /v1/st", .undecided),
    ])
    func versionIsFoundOrMissedWhenTheLineEnds(bytes: String, verdict: RequestLineCheck.Verdict) {
        var check = RequestLineCheck()
        let action26 = check.consume(Array(bytes.utf8))
        #expect(action26 == verdict)
    }

    /// The verdict holds across reads that split the line anywhere.
    @Test func splitLineIsJudgedWhenItsEndArrives() {
        var check = RequestLineCheck()
        let action27 = check.consume(Array("GET /v1/status HT".utf8))
        #expect(action27 == .undecided)
        let action28 = check.consume(Array("TP/1.1\r".utf8))
        #expect(action28 == .undecided)
        let action29 = check.consume(Array("\n".utf8))
        #expect(action29 == .hasVersion)
    }
}
