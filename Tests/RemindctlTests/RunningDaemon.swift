import Foundation
import RemindClient
import RemindTesting

#if canImport(Glibc)
    import Glibc
#endif

/// The real `remindd`, in a temp directory of its own, ready once it sent `READY=1` on a real
/// notify socket; stopped (SIGTERM, then SIGKILL after 10 s) and cleaned up on deinit.
final class RunningDaemon {
    struct NotReady: Error, CustomStringConvertible {
        let log: String
        var description: String { "remindd did not send READY=1; its output:\n\(log)" }
    }

    let directory: String
    var socketPath: String { directory + "/r.sock" }
    var configPath: String { directory + "/remindd.json" }
    var logPath: String { directory + "/remindd.log" }
    var client: UnixHTTPClient { UnixHTTPClient(socketPath: socketPath) }
    private var process: SpawnedProcess?
    private let notify: DatagramListener

    /// Starts remindd with `configuration` (a JSON object) as its file. The default has a file
    /// sink, so that nothing is written to the host's journal.
    init(configuration: String? = nil) throws {
        let directory = try BuildProducts.temporaryDirectory("remindctl-tests")
        self.directory = directory
        let configPath = directory + "/remindd.json"
        let logPath = directory + "/remindd.log"
        let socketPath = directory + "/r.sock"
        var json = configuration ?? #"{"sinks":[{"type":"file","path":"\#(directory)/events.jsonl"}]}"#
        // The same commands against a daemon on another backend (`TestStorage`): on PostgreSQL,
        // each daemon gets a database of its own on the test process's server.
        if !json.contains(#""storage""#), let storage = try TestStorage.current.member()?.member {
            let rest = json.drop { $0 != "{" }.dropFirst()
            let separator = rest.trimmingCharacters(in: .whitespacesAndNewlines) == "}" ? "" : ","
            json = "{" + storage + separator + rest
        }
        try json.write(toFile: configPath, atomically: true, encoding: .utf8)
        let notify = try DatagramListener()
        self.notify = notify
        let log = try SpawnedProcess.openStream(logPath, O_WRONLY | O_CREAT | O_APPEND)
        defer { close(log) }
        let null = try SpawnedProcess.openStream(nil, O_RDONLY)
        defer { close(null) }
        var environment = ["PATH": "/usr/bin:/bin", "NOTIFY_SOCKET": notify.path, "TZ": "UTC"]
        environment["HOME"] = directory
        let process = try SpawnedProcess(
            executable: BuildProducts.path(of: "remindd"),
            arguments: ["--config", configPath, "--state-directory", directory + "/state", "--socket", socketPath],
            environment: environment, standardInput: null, standardOutput: log, standardError: log)
        self.process = process
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline && process.isRunning {
            if let message = try notify.receive(timeout: .milliseconds(500)), message.contains("READY=1") { return }
        }
        throw NotReady(log: (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "")
    }

    deinit {
        process?.stop()
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Stops the daemon; returns its exit code.
    @discardableResult
    func stop() -> Int32 {
        defer { process = nil }
        return process?.stop() ?? -1
    }

    /// Stores a report through the API, as an app backend would.
    func report(_ userID: String, _ body: String) throws {
        let reply = try client.send("POST", "/v1/users/\(userID)/reports", body: Array(body.utf8))
        guard reply.status == 200 else { throw POSIXError(.EPROTO) }
    }

    /// The body of a GET, to compare with `remindctl --json`.
    func get(_ path: String) throws -> String {
        try client.send("GET", path).text
    }
}
