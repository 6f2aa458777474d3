import ArgumentParser
import Foundation
import RemindClient

/// What one command run needs: the client, the terminal, the clock, and the rule for turning
/// a failed call into a message and an exit code.
struct Session {
    let client: DaemonClient
    let json: Bool
    let terminal: Terminal
    let time: TimeText

    init(socketPath: String, json: Bool, terminal: Terminal = Terminal(), time: TimeText = TimeText()) {
        self.init(client: DaemonClient(socketPath: socketPath), json: json, terminal: terminal, time: time)
    }

    init(client: DaemonClient, json: Bool, terminal: Terminal = Terminal(), time: TimeText = TimeText()) {
        self.client = client
        self.json = json
        self.terminal = terminal
        self.time = time
    }

    /// Runs one call. With `--json` the answer's bytes are printed here and nil returned, so a
    /// command only formats for people; a failure is reported and becomes its exit code.
    func call<Value>(
        _ request: (DaemonClient) throws(DaemonClientError) -> Answer<Value>
    ) throws(ExitCode) -> Value? {
        do {
            let answer = try request(client)
            if json {
                terminal.raw(answer.body)
                return nil
            }
            return answer.value
        } catch {
            Terminal.error(Self.message(for: error))
            throw Self.exitCode(for: error)
        }
    }

    static func exitCode(for error: DaemonClientError) -> ExitCode {
        error.kind == .unreachable ? .unreachable : .daemonFailure
    }

    static func message(for error: DaemonClientError) -> String {
        switch error.kind {
        case .unreachable:
            var message = "cannot reach remindd: \(error.message)"
            // With --url, "socket" is the URL, and the socket hints do not apply.
            if error.socketPath.hasPrefix("http") {
                if error.message.contains("TLS handshake") { return message }
                return message + "\nis it running, and does it listen there? Check --url ($REMINDCTL_URL)"
            }
            if !error.message.contains(error.socketPath) { message += " (socket \(error.socketPath))" }
            if error.message.contains("Permission denied") {
                message += "\nthe socket is for root, remindd's user and its group; try sudo"
            } else {
                message += "\nis it running? Try: systemctl status remindd (or --socket PATH, $REMINDD_SOCKET)"
            }
            return message
        case .problem:
            let problem = error.problem
            var message = error.message
            if problem?.status == 404, message.hasPrefix("no route") {
                message += "\nthis remindd does not serve that request yet; is it older than remindctl?"
            }
            return message
        default:
            let place = error.socketPath.hasPrefix("http") ? error.socketPath : "socket \(error.socketPath)"
            return "\(error.message) (\(place))"
        }
    }
}
