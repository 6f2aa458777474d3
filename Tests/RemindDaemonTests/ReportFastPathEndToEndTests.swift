import Foundation
import RemindAPI
import RemindCore
import RemindTesting
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Reports answered by `ReportFastPathHandler`, repeats on the event loop and changes
/// by a task of its own, against the real binary: the answer is Hummingbird's, byte for byte in
/// its body and with its headers, and pipelined requests are answered in order.
@Suite(.ownThread, .serialized, .repeatAnsweringBackendsOnly)
struct ReportFastPathEndToEndTests {
    struct Answer {
        var status: Int
        var headers: [String: String]
        var body: [UInt8]
    }

    /// Reads whole responses (status line, headers, Content-Length body) until `count` arrived
    /// or `deadline` passed.
    static func read(_ count: Int, from connection: RawConnection, deadline: ContinuousClock.Instant) -> [Answer] {
        var bytes: [UInt8] = []
        var answers: [Answer] = []
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while answers.count < count, ContinuousClock.now < deadline {
            var descriptor = pollfd(fd: connection.fd, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptor, 1, 100) > 0 else { continue }
            let received = buffer.withUnsafeMutableBytes { recv(connection.fd, $0.baseAddress, $0.count, 0) }
            guard received > 0 else { break }
            bytes += buffer[0..<received]
            while let answer = parse(&bytes) { answers.append(answer) }
        }
        return answers
    }

    static func parse(_ bytes: inout [UInt8]) -> Answer? {
        let separator = Array("\r\n\r\n".utf8)
        guard let end = bytes.indices.first(where: { bytes[$0...].starts(with: separator) }) else { return nil }
        let lines = String(decoding: bytes[..<end], as: UTF8.self).components(separatedBy: "\r\n")
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
                in: .whitespaces)
        }
        let length = Int(headers["content-length"] ?? "0") ?? 0
        guard bytes.count >= end + 4 + length else { return nil }
        let status = Int(lines[0].split(separator: " ")[1]) ?? 0
        let answer = Answer(status: status, headers: headers, body: Array(bytes[(end + 4)..<(end + 4 + length)]))
        bytes.removeFirst(end + 4 + length)
        return answer
    }

    static func post(_ userID: String, _ body: String, close: Bool = false) -> String {
        "POST /v1/users/\(userID)/reports HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
            + "Content-Length: \(body.utf8.count)\r\n\(close ? "Connection: close\r\n" : "")\r\n\(body)"
    }

    /// A report's answer as a GET's status makes it: the status with no ask (`inApp` is off).
    static func answer(status: [UInt8]) -> [UInt8] { ReportAnswerBody.bytes(status: status, ask: nil) }

    static func reportCount(_ answer: Answer) throws -> JSONValue? {
        guard case .object(let object) = try JSONParser.parse(answer.body) else { return nil }
        return object["reportCount"]
    }

    /// A repeat on a kept-alive connection gets a 200 with Hummingbird's headers and the user's
    /// status, which a GET then shows byte for byte; a repeat pipelined behind a change, and a
    /// GET behind that, are answered in order; a bad body and a change still take the full path.
    @Test func repeatsAreAnsweredOnTheEventLoopInOrder() async throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        let connection = try RawConnection(socketPath: daemon.socketPath)
        let deadline = ContinuousClock.now + .seconds(30)
        let report = #"{"location":"whileInUse","notifications":"authorized"}"#
        connection.write(Self.post("fast", report))
        let first = Self.read(1, from: connection, deadline: deadline)
        #expect(first.map(\.status) == [200])
        connection.write(Self.post("fast", report))
        let repeated = Self.read(1, from: connection, deadline: deadline)
        try #require(repeated.count == 1)
        #expect(repeated[0].status == 200)
        #expect(repeated[0].headers["content-type"] == "application/json")
        #expect(repeated[0].headers["server"] == "remindd")
        #expect(repeated[0].headers["date"]?.hasSuffix(" GMT") == true)
        #expect(try Self.reportCount(repeated[0]) == .int(2))

        // A change, a repeat of it and a GET in one write: three answers in request order.
        let change = #"{"location":"always","notifications":"authorized"}"#
        connection.write(
            Self.post("fast", change) + Self.post("fast", change)
                + "GET /v1/users/fast HTTP/1.1\r\nHost: localhost\r\n\r\n")
        let pipelined = Self.read(3, from: connection, deadline: deadline)
        try #require(pipelined.count == 3)
        #expect(pipelined.map(\.status) == [200, 200, 200])
        #expect(try pipelined.map(Self.reportCount) == [.int(3), .int(4), .int(4)])
        #expect(pipelined[1].body == Self.answer(status: pipelined[2].body))

        // Kept alive again, a repeat is answered here; the GET that follows says the same.
        connection.write(Self.post("fast", change))
        let again = Self.read(1, from: connection, deadline: deadline)
        connection.write("GET /v1/users/fast HTTP/1.1\r\nHost: localhost\r\n\r\n")
        let status = Self.read(1, from: connection, deadline: deadline)
        try #require(again.count == 1 && status.count == 1)
        #expect(try Self.reportCount(again[0]) == .int(5))
        #expect(again[0].body == Self.answer(status: status[0].body))

        // Two changes and a GET in one write: the handler stores the first change while the
        // second waits, then the second, then Hummingbird answers the GET.
        connection.write(
            Self.post("fast", report) + Self.post("fast", change)
                + "GET /v1/users/fast HTTP/1.1\r\nHost: localhost\r\n\r\n")
        let changes = Self.read(3, from: connection, deadline: deadline)
        try #require(changes.count == 3)
        #expect(changes.map(\.status) == [200, 200, 200])
        #expect(try changes.map(Self.reportCount) == [.int(6), .int(7), .int(7)])
        #expect(changes[0].headers["content-type"] == "application/json" && changes[0].headers["server"] == "remindd")
        #expect(changes[1].body == Self.answer(status: changes[2].body))

        // A body that is no report is Hummingbird's 400, on the same connection.
        connection.write(Self.post("fast", #"{"location":"nowhere"}"#))
        #expect(Self.read(1, from: connection, deadline: deadline).map(\.status) == [400])
        #expect(daemon.stop(signal: SIGTERM) == 0)
    }

    /// A repeat answered from memory after something else changed the record answers the new
    /// record: after the reminder fired, its answer shows the reminder (as a GET does, byte for
    /// byte); after a forget, the same report starts a new user.
    @Test func aRepeatAfterAFireOrAForgetAnswersTheNewRecord() async throws {
        let daemon = try DaemonProcess(configuration: #""notification":{"notificationTriggerDelay":1}"#)
        try daemon.start()
        let report = #"{"location":"whileInUse","notifications":"authorized"}"#
        func lastReminderAt(_ text: String) throws -> JSONValue? {
            guard case .object(let object) = try JSONParser.parse(text) else { return nil }
            return object["lastReminderAt"]
        }
        #expect(try daemon.post("fired", report).status == 200)
        let before = try daemon.post("fired", report)
        #expect(try lastReminderAt(before.text) == .null)
        let events = try await daemon.waitForEvents(1)
        #expect(events.count == 1)
        // The reminder is in the record once the event is written.
        let after = try daemon.post("fired", report)
        #expect(after.status == 200)
        #expect(try lastReminderAt(after.text) != .null)
        #expect(after.text.contains(#""remindersDelivered":1"#))
        #expect(Self.answer(status: Array(try daemon.get("/v1/users/fired").utf8)) == Array(after.text.utf8))
        #expect(try Self.reportCount(Answer(status: 200, headers: [:], body: Array(after.text.utf8))) == .int(3))

        #expect(try daemon.client.send("DELETE", "/v1/users/fired").status == 204)
        let anew = try daemon.post("fired", report)
        #expect(anew.status == 200)
        #expect(try Self.reportCount(Answer(status: 200, headers: [:], body: Array(anew.text.utf8))) == .int(1))
        #expect(daemon.stop(signal: SIGTERM) == 0)
    }
}
