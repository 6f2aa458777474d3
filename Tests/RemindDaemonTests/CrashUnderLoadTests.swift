import Foundation
import RemindClient
import RemindCore
import RemindTesting
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The durability promise (docs/operations.md) under fire: 64 clients posting changes, `kill -9` at a random
/// moment, restart. `make test` runs 3 rounds of 4 s; `make soak` (REMINDD_SOAK=1) 20 of 10 s.
@Suite(.ownThread, .serialized)
struct CrashUnderLoadTests {
    final class StopFlag: Sendable {
        private let flag = Mutex(false)
        var isSet: Bool { flag.withLock { $0 } }
        func set() { flag.withLock { $0 = true } }
    }

    static let soak = ProcessInfo.processInfo.environment["REMINDD_SOAK"] == "1"
    static let clients = 64
    static let usersPerClient = 4

    /// What one client saw for one of its users: the last change acknowledged, and the one
    /// sent when the daemon died (stored or not: it was never acknowledged).
    struct Seen: Sendable {
        var acknowledged: String?
        var unanswered: String?
    }

    /// Runs the clients until `stop` is set; each owns its users, so per user the order of
    /// reports is known.
    static func load(_ socket: String, stop: StopFlag) -> [String: Seen] {
        let results = Mutex<[String: Seen]>([:])
        let done = DispatchGroup()
        for worker in 0..<clients {
            done.enter()
            Thread {
                defer { done.leave() }
                let client = DaemonHTTPClient(socketPath: socket, timeoutSeconds: 10)
                var seen: [String: Seen] = [:]
                var round = 0
                while !stop.isSet {
                    let user = "load-\(worker)-\(round % usersPerClient)"
                    // Alternating, so every report is a change (and reminders and withdraws flow).
                    let location = (round / usersPerClient) % 2 == 0 ? "whileInUse" : "always"
                    round += 1
                    let body = Array(#"{"location":"\#(location)","notifications":"authorized"}"#.utf8)
                    guard let reply = try? client.send("POST", "/v1/users/\(user)/reports", body: body),
                        reply.status == 200
                    else {
                        seen[user, default: Seen()].unanswered = location
                        break
                    }
                    seen[user, default: Seen()].acknowledged = location
                }
                results.withLock { $0.merge(seen) { $1 } }
            }.start()
        }
        done.wait()
        return results.withLock { $0 }
    }

    @Test func acknowledgedChangesSurviveKill9UnderLoad() async throws {
        let rounds = Self.soak ? 20 : 3
        let seconds = Self.soak ? 10.0 : 4.0
        var totals = (acknowledged: 0, found: 0, recorded: 0, delivered: 0, duplicates: 0)
        for round in 1...rounds {
            let daemon = try DaemonProcess(
                configuration: #""notification":{"notificationTriggerDelay":1,"showRecurringNotification":true}"#)
            try daemon.start()
            let stop = StopFlag()
            let socket = daemon.socketPath
            let loader = Task.detached { Self.load(socket, stop: stop) }
            // The kill lands anywhere in the run, mid-request for most clients.
            try await Task.sleep(for: .milliseconds(Int.random(in: 500...Int(seconds * 1000))))
            #expect(daemon.stop(signal: SIGKILL) == SIGKILL)
            stop.set()
            let seen = await loader.value

            try daemon.start()
            var found = 0
            for (user, what) in seen {
                let reply = try daemon.client.send("GET", "/v1/users/\(user)")
                guard let acknowledged = what.acknowledged else { continue }
                let stored = ["whileInUse", "always"].first { reply.text.contains(#""location":"\#($0)""#) }
                // The unanswered report may or may not have been stored; nothing older may win.
                #expect(
                    stored == acknowledged || (stored != nil && stored == what.unanswered),
                    "round \(round) user \(user): acknowledged \(acknowledged), stored \(reply.text)")
                if stored == acknowledged || stored == what.unanswered { found += 1 }
            }
            let acknowledgedUsers = seen.values.count { $0.acknowledged != nil }
            #expect(acknowledgedUsers > 0)

            // Close every episode, let the sinks drain, stop cleanly: then the user files are
            // complete and every delivery they record must be in the file sink.
            for user in seen.keys {
                #expect(try daemon.post(user, #"{"location":"always"}"#).status == 200)
            }
            try await WebhookOutageEndToEndTests.eventually {
                try WebhookOutageEndToEndTests.metric(daemon, "remindd_sink_outbox_depth", #"sink="file""#) == 0
            }
            #expect(daemon.stop() == 0)
            let recorded = try Self.recordedDeliveries(daemon.stateDirectory)
            let delivered = try daemon.events.map { try WebhookOutageEndToEndTests.eventID($0) }
            let deliveredSet = Set(delivered)
            #expect(recorded.subtracting(deliveredSet).isEmpty, "round \(round): reminders recorded but never emitted")
            #expect(DaemonProcess.stateFiles(daemon.stateDirectory).quarantined.isEmpty)
            totals.acknowledged += acknowledgedUsers
            totals.found += found
            totals.recorded += recorded.count
            totals.delivered += recorded.intersection(deliveredSet).count
            totals.duplicates += delivered.count - deliveredSet.count
        }
        print(
            "crash-under-load: \(rounds) kill -9 rounds, \(Self.clients) clients: users with acknowledged changes \(totals.acknowledged), found intact \(totals.found); reminders recorded \(totals.recorded), delivered \(totals.delivered), redelivered with the same id \(totals.duplicates)"
        )
    }

    /// Every reminder id the user files record as delivered (emitted into the outbox).
    static func recordedDeliveries(_ stateDirectory: String) throws -> Set<String> {
        var ids: Set<String> = []
        for path in DaemonProcess.stateFiles(stateDirectory).users {
            let record = try UserRecord(json: Array(try Data(contentsOf: URL(fileURLWithPath: path))))
            for episode in record.episodes { for delivery in episode.deliveries { ids.insert(delivery.id) } }
        }
        return ids
    }
}
