import Crypto
import Foundation
import RemindClient
import RemindCore
import RemindTesting
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// More than one instance on one PostgreSQL database (docs/operations.md): real daemons, each with its
/// own socket and file sink (the same sink name), on a real server started by the test.
@Suite(.ownThread, .serialized, .enabled(if: PostgresServer.isInstalled, "needs Debian's postgresql"))
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
            let reply = try daemons[index % daemons.count].postRetrying(
                "u-\(index)", #"{"location":"whileInUse","notifications":"authorized","observedAt":"\#(at)"}"#)
            guard reply.status == 200 else { throw ReportRefused(description: "report \(index): \(reply.text)") }
        }
    }

    /// Two daemons (not started) on one new database of the shared server, with a trigger
    /// delay of `delay` seconds; and their configuration's members.
    static func twoInstances(delay: Int) throws -> (DaemonProcess, DaemonProcess, String) {
        let server = try PostgresServer.shared()
        let url = server.url(database: try server.createDatabase())
        let configuration = #""notification":{"notificationTriggerDelay":\#(delay)},"# + storage(url)
        return (
            try DaemonProcess(configuration: configuration), try DaemonProcess(configuration: configuration),
            configuration
        )
    }

    struct ReportRefused: Error, CustomStringConvertible {
        var description: String
    }

    static func waitForIDs(
        _ daemons: [DaemonProcess], distinct count: Int, within limit: Duration = .seconds(90)
    ) async throws -> [String] {
        // At the deadline the ids so far: the caller's expectations name what is missing.
        do {
            try await waitUntil("\(count) distinct events", within: limit, every: .milliseconds(100)) {
                Set(daemons.flatMap { ids($0.events) }).count >= count
            }
        } catch is DeadlineExceeded {}
        return daemons.flatMap { ids($0.events) }
    }

    /// 2,000 users due at once, two instances: every reminder is delivered exactly once across
    /// the two file sinks, and both instances took part.
    @Test func twoInstancesDeliverEveryReminderOnce() async throws {
        let (a, b, _) = try Self.twoInstances(delay: 15)
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
        // The daemon-wide counts are the database's, from either instance (within 5 s).
        var counted = false
        try await waitUntil("B's status to count every user", within: .seconds(15), every: .milliseconds(250)) {
            let text = try b.client.send("GET", "/v1/status").text
            counted = text.contains(#""users":2000"#) && text.contains(#""pendingReminders":0"#)
            return counted
        }
        #expect(counted, "B's /v1/status counts every user of the database")
        #expect(try b.client.send("GET", "/v1/reminders").text == #"{"reminders":[]}"#)
        #expect(a.stop() == 0)
        #expect(b.stop() == 0)
    }

    /// SIGKILL of one instance while it delivers: the other delivers everything; an event seen
    /// twice is one the dead instance had claimed, under the same id.
    /// Asks and events on two instances of one database: the interval holds across them, an
    /// event counts once whichever instance gets it, and both show the same funnel.
    @Test func asksAndEventsAcrossInstances() throws {
        let server = try PostgresServer.shared()
        let url = server.url(database: try server.createDatabase())
        let configuration = #""inApp":{"enabled":true,"minIntervalSeconds":3600},"# + Self.storage(url)
        let (a, b) = (try DaemonProcess(configuration: configuration), try DaemonProcess(configuration: configuration))
        try a.start()
        try b.start()
        let first = try a.post("shared", #"{"location":"whileInUse"}"#)
        guard case .object(let answer) = try JSONParser.parse(first.body), case .object(let ask)? = answer["ask"],
            case .string(let askID)? = ask["id"]
        else { throw ReportRefused(description: first.text) }
        // The other instance sees the ask given: within the interval, no second one.
        #expect(try b.post("shared", #"{"location":"whileInUse"}"#).text.hasSuffix(#","ask":null}"#))
        let events = Array(#"{"events":[{"type":"askShown","id":"\#(askID)"}]}"#.utf8)
        #expect(try b.client.send("POST", "/v1/users/shared/events", body: events).text == #"{"accepted":1}"#)
        #expect(try a.client.send("POST", "/v1/users/shared/events", body: events).text == #"{"accepted":0}"#)
        for daemon in [a, b] {
            let status = try daemon.get("/v1/users/shared")
            #expect(status.contains(#""asks":1,"asksShown":1,"asksAccepted":0"#))
            let stats = try daemon.get("/v1/stats")
            #expect(stats.contains(#""resolvedAfterAsk":{"default":{"accepted":{"episodes":0,"#))
            #expect(stats.contains(#""notAccepted":{"episodes":1,"resolved":0"#))
        }
        #expect(a.stop() == 0 && b.stop() == 0)
    }

    /// Two instances with an `apns` sink each (one local APNs server) and a fallback sink each:
    /// every reminder reaches exactly one channel, once, whichever instance fires it.
    @Test func eachReminderReachesOneChannelOnceAcrossInstances() async throws {
        let (a, b, configuration) = try Self.twoInstances(delay: 4)
        let key = P256.Signing.PrivateKey()
        let certificates = try TestCertificates(directory: a.directory)
        let server = PushServer(certificates: certificates, apnsKey: key.publicKey)
        server.respond { _ in .init(200) }
        try await server.serving {
            for daemon in [a, b] {
                try FallbackEndToEndTests.configure(
                    daemon, server, key: key, certificates: certificates, configuration: configuration)
            }
            try a.start()
            try b.start()
            let count = 200
            // Even users can be pushed to (each its own token), odd ones have no push address.
            for index in 0..<count {
                let token = String(repeating: "0", count: 64 - String(index).count) + String(index)
                let push = index % 2 == 0 ? #","push":{"service":"apns","token":"\#(token)"}"# : ""
                let reply = try [a, b][index % 2].postRetrying(
                    "u-\(index)", #"{"location":"whileInUse","notifications":"authorized"\#(push)}"#)
                #expect(reply.status == 200)
            }
            func fellBack() -> [String] {
                [a, b].flatMap { FallbackEndToEndTests.reminders(in: FallbackEndToEndTests.fallbackLines($0)) }.map(
                    \.user)
            }
            try await waitUntil("every reminder on its channel", within: .seconds(120), every: .milliseconds(100)) {
                server.requests(to: "/3/device/").count + fellBack().count >= count
            }
            let pushedTokens = server.requests(to: "/3/device/").map(\.path)
            #expect(pushedTokens.count == count / 2 && Set(pushedTokens).count == count / 2, "each push once")
            let fallback = fellBack()
            #expect(fallback.count == count / 2 && Set(fallback).count == count / 2, "each fallback once")
            #expect(fallback.allSatisfy { Int($0.dropFirst(2))! % 2 == 1 }, "only users push cannot reach")
            #expect(a.stop() == 0)
            #expect(b.stop() == 0)
        }
    }

    @Test func killedInstanceLosesNothing() async throws {
        let (a, b, configuration) = try Self.twoInstances(delay: 10)
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

    /// A report taken by A makes a reminder due in 2 s, and A stops at once: B, woken by the
    /// database's notification, delivers it within 1 s of its due time.
    @Test func anotherInstanceFiresWhatAReportMadeDue() async throws {
        let (a, b, _) = try Self.twoInstances(delay: 60)
        try a.start()
        try b.start()
        // B's scheduler goes to sleep with nothing due; only the notification can wake it early.
        let due = Date().addingTimeInterval(2).millisecondPrecision
        let observed = RFC3339.format(due.addingTimeInterval(-60))
        #expect(try a.post("u-a", #"{"location":"whileInUse","observedAt":"\#(observed)"}"#).status == 200)
        #expect(a.stop() == 0)
        let events = try await b.waitForEvents(1, timeout: .seconds(30))
        #expect(events.count == 1)
        // B fired it within 1 s of its due time: the event's own stamps say when, whatever the
        // file sink's fsync took under the parallel suite.
        guard case .object(let event)? = try? JSONParser.parse(events.first ?? ""),
            case .string(let created)? = event["createdAt"], let firedAt = RFC3339.parse(created)
        else { throw ReportRefused(description: "no createdAt in \(events)") }
        #expect(firedAt.timeIntervalSince(due) < 1.0, "fired \(firedAt.timeIntervalSince(due)) s after its due time")
        #expect(firedAt >= due)
        #expect(Self.ids(events).first?.hasPrefix("u-a/") == true)
        #expect(b.stop() == 0)
    }

    /// The database down at start: no READY, STATUS= says what remindd waits for; READY
    /// once it is up. Down while running: reports get 503 problem+json and the daemon stays
    /// up; after a restart of the server it reconnects, and nothing acknowledged is lost.
    @Test func databaseDownAtStartAndWhileRunning() async throws {
        let server = try PostgresServer()
        let url = server.url(database: try server.createDatabase())
        server.stop()
        let daemon = try DaemonProcess(configuration: Self.storage(url))
        try daemon.start(waitForReady: false)
        let status = try daemon.waitFor("waiting for PostgreSQL", timeout: .seconds(30))
        #expect(status.contains("STATUS="))
        #expect(!status.contains("READY=1"))
        // systemd's start timeout is extended while remindd waits, so it is not killed for it.
        #expect(status.contains("EXTEND_TIMEOUT_USEC=30000000"))
        // The store says what it waits for while the listeners may still be binding.
        try await waitUntil("the socket", within: .seconds(10), every: .milliseconds(20)) {
            FileManager.default.fileExists(atPath: daemon.socketPath)
        }
        let down = try daemon.post("u-1", #"{"location":"whileInUse"}"#)
        #expect(down.status == 503)
        try server.start()
        try daemon.waitFor("READY=1", timeout: .seconds(30))
        #expect(try daemon.post("u-1", #"{"location":"whileInUse"}"#).status == 200)

        server.stop()
        let refused = try daemon.post("u-2", #"{"location":"denied"}"#)
        #expect(refused.status == 503)
        #expect(refused.headers["content-type"] == "application/problem+json")
        #expect(refused.text.contains("unavailable"))
        #expect(!refused.text.contains("postgresql://"))
        try server.start()
        var accepted = false
        try await waitUntil("a report taken again", within: .seconds(30), every: .milliseconds(200)) {
            accepted = try daemon.post("u-2", #"{"location":"denied"}"#).status == 200
            return accepted
        }
        #expect(accepted, "reports are taken again after the server is back")
        let first = try daemon.client.send("GET", "/v1/users/u-1")
        #expect(first.status == 200 && first.text.contains(#""location":"whileInUse""#))
        #expect(daemon.stop() == 0)
    }

    /// The server stopped under a running daemon: the first report after the stop is answered
    /// 503 problem+json with `Retry-After` within 1 s (it does not wait for a connection the
    /// server refuses), and so is each one while it stays down; once the server is back the
    /// same daemon takes reports again by itself, and every report acknowledged before the
    /// stop is there.
    @Test func reportsFailFastWhileTheServerIsStopped() async throws {
        let server = try PostgresServer()
        let url = server.url(database: try server.createDatabase())
        let daemon = try DaemonProcess(configuration: Self.storage(url))
        try daemon.start()
        let pid = daemon.pid
        let acknowledged = (0..<5).map { "u-\($0)" }
        for user in acknowledged {
            #expect(try daemon.postRetrying(user, #"{"location":"whileInUse"}"#).status == 200)
        }

        server.stop()
        for attempt in 0..<3 {
            let asked = ContinuousClock.now
            let refused = try daemon.post("u-down-\(attempt)", #"{"location":"denied"}"#)
            let took = ContinuousClock.now - asked
            #expect(took < .seconds(1), "report \(attempt) after the stop answered in \(took)")
            #expect(refused.status == 503)
            #expect(refused.headers["retry-after"] != nil)
            #expect(refused.headers["content-type"] == "application/problem+json")
            #expect(refused.text.contains("unavailable"))
        }

        try server.start()
        var accepted = false
        try await waitUntil("a report taken again", within: .seconds(30), every: .milliseconds(100)) {
            accepted = try daemon.post("u-back", #"{"location":"denied"}"#).status == 200
            return accepted
        }
        #expect(accepted, "reports are taken again after the server is back")
        #expect(daemon.pid == pid, "the same daemon, never restarted")
        for user in acknowledged {
            let status = try daemon.client.send("GET", "/v1/users/\(user)")
            #expect(status.status == 200 && status.text.contains(#""location":"whileInUse""#), "\(user)")
        }
        #expect(daemon.stop() == 0)
    }

    /// SIGTERM while remindd still waits for the database at start: it stops at once and
    /// exits 0, as at any other time.
    @Test func stopWhileWaitingForTheDatabase() throws {
        let server = try PostgresServer()
        let url = server.url(database: try server.createDatabase())
        server.stop()
        let daemon = try DaemonProcess(configuration: Self.storage(url))
        try daemon.start(waitForReady: false)
        try daemon.waitFor("waiting for PostgreSQL", timeout: .seconds(30))
        let asked = ContinuousClock.now
        #expect(daemon.stop() == 0)
        #expect(ContinuousClock.now - asked < .seconds(10))
    }
}
