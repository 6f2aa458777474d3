import ArgumentParser
import Foundation

/// remindctl: the operator's view of remindd, as systemctl and journalctl are for systemd.
@main
struct Remindctl: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remindctl",
        abstract: "Ask remindd what it is doing, and tell it what to do.",
        discussion: """
            remindctl talks to remindd over its Unix socket: --socket PATH, else $REMINDD_SOCKET, \
            else the socket remindd uses when started from the same directory \
            ($XDG_RUNTIME_DIR/remindd.sock or ./remindd.sock), else /run/remindd/remindd.sock. \
            Over the network it talks to remindd's TCP listener: --url https://HOST:PORT with \
            --token-file, --cacert for a private CA, --cert and --key under mutual TLS (or \
            $REMINDCTL_URL, $REMINDCTL_TOKEN_FILE, $REMINDCTL_CACERT, $REMINDCTL_CERT, \
            $REMINDCTL_KEY).

            Examples:
              remindctl status
              remindctl user u-42
              remindctl explain u-42
              remindctl pending --before 7d
              remindctl --json history u-42 --limit 5
              remindctl config check /etc/remindd/remindd.json
              remindctl export > users.ndjson
              remindctl --url https://host:8650 --cacert ca.pem --token-file t status

            Exit codes: 0 success, 1 failure reported by remindd, 2 usage, 3 remindd \
            unreachable, 78 invalid configuration.
            """,
        subcommands: [
            StatusCommand.self, UserCommand.self, ExplainCommand.self, HistoryCommand.self, PendingCommand.self,
            ReportCommand.self, ForgetCommand.self, ReloadCommand.self, DeadLettersCommand.self, ConfigCommand.self,
            StatsCommand.self, ExportCommand.self, ImportCommand.self,
        ])

    @OptionGroup(title: "Global Options")
    var options: GlobalOptions

    /// ArgumentParser's `main`, with its usage exit code (EX_USAGE, 64) replaced by 2.
    static func main() {
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch {
            if exitCode(for: error) == .validationFailure {
                FileHandle.standardError.write(Data((fullMessage(for: error) + "\n").utf8))
                Foundation.exit(ExitCode.usage.rawValue)
            }
            exit(withError: error)
        }
    }
}
