import Foundation
import RemindClient
import RemindCore
import RemindTesting
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// More than one instance on one PostgreSQL database (DESIGN §2): real daemons, each with its
/// own socket and file sink (the same sink name), on a real server started by the test.
@Suite(.serialized, .enabled(if: PostgresServer.isInstalled, "needs Debian's postgresql"))
struct PostgresEndToEndTests {
    static func storage(_ url: String, lease: Int = 3) -> String {
        #""storage":{"type":"postgres","url":"\#(url)","leaseSeconds":\#(lease)}"#
    }

    static func ids(_ lines: [String]) -> [String] {
        lines.compactMap { line in
            guard case .object(let object)? = try? JSONParser.parse(line), case .string(let id)? = object["id"] else {
                return nil
            }
            return id
        }
    }

    /// Reports whose reminders all come due at one instant `delay` seconds after `observedAt`.
    static func postUsers(_ daemons: [DaemonProcess], count: Int, observedAt: Date) throws {
        let at = RFC3339.format(observedAt)
        for index in 0..<count {
            let reply = try daemons[index % daemons.count].post(
                "u-\(index)", #"{"location":"whileInUse","notifications":"authorized","observedAt":"\#(at)"}"#)
            guard reply.status == 200 else { throw ReportRefused(description: "report \(index): \(reply.text)") }
        }
    }

    struct ReportRefused: Error, CustomStringConvertible {
        var description: String
    }

    static func waitForIDs(
        _ daemons: [DaemonProcess], distinct count: Int, within limit: Duration = .seconds(90)
    ) async throws -> [String] {
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            let all = daemons.flatMap { ids($0.events) }
            if Set(all).count >= count { return all }
            try await Task.sleep(for: .milliseconds(100))
        }
        return daemons.flatMap { ids($0.events) }
    }

    /// 2,000 users due at once, two instances: every reminder is delivered exactly once across
    /// the two file sinks, and both instances took part.
    @Test func twoInstancesDeliverEveryReminderOnce() async throws {
        let server = try PostgresServer.shared()
        let url = server.url(database: try server.createDatabase())
        let configuration = #""notification":{"notificationTriggerDelay":15},"# + Self.storage(url)
        let a = try DaemonProcess(configuration: configuration)
        let b = try DaemonProcess(configuration: configuration)
        try a.start()
        try b.start()
        try Self.postUsers([a, b], count: 2_000, observedAt: Date())
        let all = try await Self.waitForIDs([a, b], distinct: 2_000)
        #expect(all.count == 2_000, "every reminder exactly once")
        #expect(Set(all).count == 2_000)
        #expect(!a.events.isEmpty && !b.events.isEmpty, "both instances delivered")
        // Either instance answers for the whole database.
        let status = try a.client.send("GET", "/v1/users/u-1999")
        #expect(status.status == 200 && status.text.contains(#""remindersDelivered":1"#))
        #expect(a.stop() == 0)
        #expect(b.stop() == 0)
    }

    /// SIGKILL of one instance while it delivers: the other delivers everything; an event seen
    /// twice is one the dead instance had claimed, under the same id.
    @Test func killedInstanceLosesNothing() async throws {
        let server = try PostgresServer.shared()
        let url = server.url(database: try server.createDatabase())
        let configuration = #""notification":{"notificationTriggerDelay":10},"# + Self.storage(url)
        let a = try DaemonProcess(configuration: configuration)
        let b = try DaemonProcess(configuration: configuration)
        // A's sink of the same name is slow (each delivery takes 0.2 s), so that it holds a
        // claim when it dies.
        let slow =
            #"{"type":"exec","name":"file","command":["/bin/sh","-c","sleep 0.2; cat >> \"$0\"; echo >> \"$0\"","\#(a.eventsPath)"]}"#
        try #"{\#(configuration),"sinks":[\#(slow)]}"#.write(toFile: a.configPath, atomically: true, encoding: .utf8)
        try a.start()
        try Self.postUsers([a], count: 300, observedAt: Date())
        // A alone at first, so that it holds claims when it dies.
        _ = try await Self.waitForIDs([a], distinct: 5, within: .seconds(60))
        a.stop(signal: SIGKILL)
        let before = Set(Self.ids(a.events))
        try b.start()
        let all = try await Self.waitForIDs([a, b], distinct: 300, within: .seconds(120))
        #expect(Set(all).count == 300, "every reminder delivered")
        let fromB = Self.ids(b.events)
        #expect(Set(fromB).count == fromB.count, "B delivers each event once")
        let twice = Set(fromB).intersection(before)
        // Only what A had claimed and not marked done comes again: at most its concurrency.
        #expect(twice.count <= 1, "duplicates: \(twice.count)")
        #expect(b.stop() == 0)
    }
}
