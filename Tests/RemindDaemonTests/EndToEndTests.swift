import Foundation
import RemindClient
import RemindCore
import RemindTesting
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The real binary with a 2 s trigger delay and a file sink: what a user sees.
@Suite(.ownThread, .serialized)
struct EndToEndTests {
    static func object(_ line: String) throws -> JSONObject {
        guard case .object(let object) = try JSONParser.parse(line) else { throw POSIXError(.EINVAL) }
        return object
    }

    /// A whileInUse report yields exactly one reminder with the documented fields; granting Always
    /// afterwards yields the withdraw naming it; SIGTERM ends the daemon with 0.
    @Test func reminderThenWithdraw() async throws {
        let daemon = try DaemonProcess(configuration: #""notification":{"notificationTriggerDelay":2}"#)
        try daemon.start()
        let reply = try daemon.post("u-1", #"{"location":"whileInUse","notifications":"authorized"}"#)
        #expect(reply.status == 200)
        let events = try await daemon.waitForEvents(1)
        #expect(events.count == 1)
        let reminder = try Self.object(events[0])
        #expect(
            reminder.keys == [
                "type", "id", "userID", "title", "body", "reason", "errors", "sequence", "episodeStartedAt", "dueAt",
                "channel", "because", "locale", "platform", "createdAt",
            ])
        #expect(reminder["type"] == .string("reminder"))
        #expect(reminder["userID"] == .string("u-1"))
        #expect(reminder["title"] == .string("App is unable to record trips"))
        #expect(reminder["reason"] == .string("locationNotAuthorizedAlways"))
        #expect(reminder["sequence"] == .int(1))
        guard case .string(let id)? = reminder["id"] else { throw POSIXError(.EINVAL) }
        #expect(id.hasPrefix("u-1/") && id.hasSuffix("/1"))

        #expect(try daemon.post("u-1", #"{"location":"always"}"#).status == 200)
        let afterAlways = try await daemon.waitForEvents(2)
        #expect(afterAlways.count == 2)
        let withdraw = try Self.object(afterAlways[1])
        #expect(withdraw["type"] == .string("withdraw"))
        #expect(withdraw["reminderIDs"] == .array([.string(id)]))
        #expect(daemon.stop(signal: SIGTERM) == 0)
        // Not one event more after the episode closed.
        #expect(daemon.events.count == 2)
    }

    /// With recurring on, reminders repeat every delay while Always access is missing.
    @Test func recurringReminderRepeats() async throws {
        let daemon = try DaemonProcess(
            configuration: #""notification":{"notificationTriggerDelay":1,"showRecurringNotification":true}"#)
        try daemon.start()
        try daemon.post("u-r", #"{"location":"denied"}"#)
        let events = try await daemon.waitForEvents(3)
        let sequences = try events.prefix(3).map { try Self.object($0)["sequence"] }
        #expect(sequences == [.int(1), .int(2), .int(3)])
        daemon.stop()
    }

    /// Notifications denied: nothing is sent at the due time; allowing them delivers the
    /// reminder at once.
    @Test func suppressedThenDeliveredWhenNotificationsAllowed() async throws {
        let daemon = try DaemonProcess(configuration: #""notification":{"notificationTriggerDelay":1}"#)
        try daemon.start()
        try daemon.post("u-s", #"{"location":"whileInUse","notifications":"denied"}"#)
        // The status counts the suppression once the due time has passed.
        var suppressed = false
        try await waitUntil("the suppression counted", within: .seconds(90), every: .milliseconds(100)) {
            let status = try daemon.client.send("GET", "/v1/users/u-s")
            suppressed = status.text.contains(#""remindersSuppressed":1"#)
            return suppressed
        }
        #expect(suppressed)
        #expect(daemon.events.isEmpty)
        try daemon.post("u-s", #"{"location":"whileInUse","notifications":"authorized"}"#)
        let events = try await daemon.waitForEvents(1)
        #expect(events.count == 1)
        #expect(try Self.object(events[0])["type"] == .string("reminder"))
        daemon.stop()
    }

    /// A second daemon on the same state directory exits non-zero naming the lock file.
    @Test(.filesBackendOnly) func secondDaemonOnSameStateDirectoryExits() throws {
        let first = try DaemonProcess()
        try first.start()
        let second = try DaemonProcess()
        try second.start(
            arguments: [
                "--config", second.configPath, "--state-directory", first.stateDirectory, "--socket",
                second.socketPath,
            ], waitForReady: false)
        #expect(second.waitForExit() != 0)
        #expect(second.log.contains(first.stateDirectory + "/lock"))
        // The first one is unaffected.
        #expect(try first.client.send("GET", "/v1/status").status == 200)
        first.stop()
    }

    /// An invalid configuration file exits with 78 (EX_CONFIG), names the key path, and tells
    /// systemd why (STATUS= and EXIT_STATUS=78).
    @Test func invalidConfigurationExits78() throws {
        let daemon = try DaemonProcess(configuration: #""schedule":{"jitterSeconds":-1}"#)
        try daemon.start(waitForReady: false)
        let notice = try daemon.waitFor("EXIT_STATUS=", timeout: .seconds(30))
        #expect(notice.contains("EXIT_STATUS=78"))
        #expect(notice.contains("schedule.jitterSeconds"))
        #expect(daemon.waitForExit() == 78)
        #expect(daemon.log.contains("schedule.jitterSeconds"))
    }

    /// A state directory keeps the division it was created with: a daemon in two parts stores
    /// its users there; restarted with another `storage.parts` it exits 78 naming the key and
    /// the count to set, and changes nothing; with the right count every user is back.
    @Test(.filesBackendOnly) func anotherPartCountExits78AndChangesNothing() throws {
        let daemon = try DaemonProcess(configuration: #""storage":{"parts":2}"#)
        try daemon.start()
        for user in ["p1", "p2", "p3", "p4"] { #expect(try daemon.post(user, #"{"location":"denied"}"#).status == 200) }
        #expect(daemon.stop() == 0)
        let listing = { try FileManager.default.contentsOfDirectory(atPath: daemon.stateDirectory).sorted() }
        let before = try listing()
        #expect(before.contains("part-0-of-2") && before.contains("part-1-of-2") && !before.contains("users"))
        for parts in [1, 3] {
            try daemon.writeConfiguration(#""storage":{"parts":\#(parts)}"#, extraSinks: "")
            try daemon.start(waitForReady: false)
            let notice = try daemon.waitFor("EXIT_STATUS=", timeout: .seconds(30))
            #expect(notice.contains("EXIT_STATUS=78") && notice.contains("storage.parts"), "\(notice)")
            #expect(daemon.waitForExit() == 78)
            #expect(daemon.log.contains("holds 2 parts") && daemon.log.contains("Set storage.parts to 2"))
            #expect(try listing() == before)
        }
        try daemon.writeConfiguration(#""storage":{"parts":2}"#, extraSinks: "")
        try daemon.start()
        for user in ["p1", "p2", "p3", "p4"] {
            #expect(try daemon.client.send("GET", "/v1/users/\(user)").text.contains(#""location":"denied""#))
        }
        #expect(try daemon.client.send("GET", "/v1/status").text.contains(#""users":4"#))
        #expect(daemon.stop() == 0)
    }

    /// A stale socket file left by a crash is replaced; the parent directory is created.
    @Test func staleSocketIsReplaced() throws {
        let daemon = try DaemonProcess()
        try daemon.start()
        #expect(daemon.stop(signal: SIGKILL) == SIGKILL)
        #expect(FileManager.default.fileExists(atPath: daemon.socketPath))
        try daemon.start()
        #expect(try daemon.client.send("GET", "/v1/status").status == 200)
        var info = stat()
        #expect(stat(daemon.socketPath, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o660)
        daemon.stop()
    }

    /// SIGHUP re-reads the file: a valid change applies (RELOADING=1 … READY=1 on the notify
    /// socket), an invalid one is refused and the running configuration kept; SIGTERM sends
    /// STOPPING=1, asks systemd for time while the last checkpoint writes the files
    /// (EXTEND_TIMEOUT_USEC), and exits 0.
    @Test func sighupReloadsAndSigtermStops() throws {
        let daemon = try DaemonProcess(configuration: #""notification":{"notificationTriggerDelay":100}"#)
        try daemon.start()
        let pid = try #require(daemon.pid)
        try
            #"{"notification":{"notificationTriggerDelay":200},"sinks":[{"type":"file","path":"\#(daemon.eventsPath)"}]}"#
            .write(toFile: daemon.configPath, atomically: true, encoding: .utf8)
        kill(pid, SIGHUP)
        let reloading = try daemon.waitFor("RELOADING=1")
        #expect(reloading.contains("MONOTONIC_USEC="))
        try daemon.waitFor("READY=1")
        #expect(try daemon.client.send("GET", "/v1/config").text.contains(#""notificationTriggerDelay":200"#))

        try #"{"notification":{"notificationTriggerDelay":0}}"#.write(
            toFile: daemon.configPath, atomically: true, encoding: .utf8)
        kill(pid, SIGHUP)
        try daemon.waitFor("READY=1")
        #expect(try daemon.client.send("GET", "/v1/config").text.contains(#""notificationTriggerDelay":200"#))
        let refused = try daemon.client.send("POST", "/v1/reload")
        #expect(refused.status == 422)
        #expect(refused.text.contains("notification.notificationTriggerDelay"))

        kill(pid, SIGTERM)
        try daemon.waitFor("STOPPING=1")
        if !DaemonProcess.usesPostgres {
            // Only the files backend has files to write at the end.
            let extending = try daemon.waitFor("EXTEND_TIMEOUT_USEC=")
            #expect(
                extending.contains("EXTEND_TIMEOUT_USEC=30000000")
                    && extending.contains("STATUS=writing the user files"))
        }
        #expect(daemon.waitForExit() == 0)
    }

    /// With WATCHDOG_USEC set, the scheduler loop sends WATCHDOG=1 at half the interval;
    /// READY=1 comes with a STATUS= line counting users and pending reminders.
    @Test func watchdogAndStatusReachTheNotifySocket() throws {
        let daemon = try DaemonProcess()
        try daemon.start(environment: ["WATCHDOG_USEC": "400000"], waitForReady: false)
        let ready = try daemon.waitFor("READY=1")
        #expect(ready.contains("STATUS=0 users, 0 reminders pending"))
        let started = ContinuousClock.now
        for _ in 0..<5 { try daemon.waitFor("WATCHDOG=1", timeout: .seconds(5)) }
        // Five pings at 200 ms take about a second; far longer means the pace is wrong.
        #expect(ContinuousClock.now - started < .seconds(4))
        daemon.stop()
    }

    /// Under `systemd-socket-activate` the daemon serves the passed socket instead of binding
    /// its own: the first connection starts it and is answered, READY=1 follows, and the
    /// configured socket path is never created.
    @Test func socketActivation() throws {
        let daemon = try DaemonProcess()
        let activated = daemon.directory + "/activated.sock"
        try daemon.start(
            waitForReady: false, launcher: ["/usr/bin/systemd-socket-activate", "-E", "NOTIFY_SOCKET", "-l", activated])
        // systemd-socket-activate binds and then listens, in another process: until it listens,
        // connecting is refused (the file exists between bind and listen; CI hit that window).
        // Retry every 20 ms until a deadline (there is nothing in-process to wait on); a refused
        // connect is no connection, so the request that gets through is still the first one.
        let client = DaemonHTTPClient(socketPath: activated)
        let body = Array(#"{"location":"denied"}"#.utf8)
        func firstReply() throws -> HTTPReply? {
            var reply: HTTPReply?
            try waitUntil("the activated socket to listen", within: .seconds(90), pausingThread: .milliseconds(20)) {
                do {
                    reply = try client.send("POST", "/v1/users/act/reports", body: body)
                } catch let error as ClientError where error.kind == .unreachable {}
                return reply != nil
            }
            return reply
        }
        #expect(try firstReply()?.status == 200)
        try daemon.waitFor("READY=1")
        #expect(!FileManager.default.fileExists(atPath: daemon.socketPath))
        #expect(daemon.stop() == 0)
    }
}
