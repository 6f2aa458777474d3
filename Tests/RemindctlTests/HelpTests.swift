import Foundation
import RemindTesting
import Testing

/// Help and completions, from the argument parser.
@Suite(.ownThread)
struct HelpTests {
    /// The root help, exactly: a change to it is a change to the tool's documentation.
    @Test func rootHelpMatchesSnapshot() throws {
        let result = try Remindctl.run(["--help"])
        #expect(result.status == 0)
        #expect(result.standardOutput == Self.rootHelp)
    }

    /// Every subcommand's help carries examples.
    @Test func subcommandHelpHasExamples() throws {
        let commands = [
            "status", "user", "explain", "history", "pending", "report", "forget", "reload", "dead-letters",
            "dead-letters list", "dead-letters replay", "config check", "stats", "export", "import",
        ]
        for command in commands {
            let result = try Remindctl.run(command.split(separator: " ").map(String.init) + ["--help"])
            #expect(result.status == 0, "\(command)")
            #expect(result.standardOutput.contains("Examples:\n  remindctl "), "\(command)")
        }
    }

    /// Completion scripts for bash, zsh and fish name the subcommands.
    @Test func completionScriptsNameSubcommands() throws {
        for shell in ["bash", "zsh", "fish"] {
            let result = try Remindctl.run(["--generate-completion-script", shell])
            #expect(result.status == 0, "\(shell)")
            #expect(result.standardOutput.contains("dead-letters"), "\(shell)")
            #expect(result.standardOutput.contains("whileInUse"), "\(shell)")
        }
    }

    static let rootHelp = """
        OVERVIEW: Ask remindd what it is doing, and tell it what to do.

        remindctl talks to remindd over its Unix socket: --socket PATH, else
        $REMINDD_SOCKET, else the socket remindd uses when started from the same
        directory ($XDG_RUNTIME_DIR/remindd.sock or ./remindd.sock), else
        /run/remindd/remindd.sock. Over the network it talks to remindd's TCP listener:
        --url https://HOST:PORT with --token-file, --cacert for a private CA, --cert
        and --key under mutual TLS (or $REMINDCTL_URL, $REMINDCTL_TOKEN_FILE,
        $REMINDCTL_CACERT, $REMINDCTL_CERT, $REMINDCTL_KEY).

        Examples:
          remindctl status
          remindctl user u-42
          remindctl explain u-42
          remindctl pending --before 7d
          remindctl --json history u-42 --limit 5
          remindctl config check /etc/remindd/remindd.json
          remindctl export > users.ndjson
          remindctl --url https://host:8650 --cacert ca.pem --token-file t status

        Exit codes: 0 success, 1 failure reported by remindd, 2 usage, 3 remindd
        unreachable, 78 invalid configuration.

        USAGE: remindctl [--socket <path>] [--url <url>] [--cacert <file>] [--cert <file>] [--key <file>] [--token-file <file>] [--json] <subcommand>

        GLOBAL OPTIONS:
          --socket <path>         The daemon's Unix socket (default: $REMINDD_SOCKET,
                                  else remindd's own default).
          --url <url>             Query the daemon over its TCP listener, e.g.
                                  https://host:8650, instead of the Unix socket
                                  (default: $REMINDCTL_URL). Needs --token-file.
          --cacert <file>         PEM CA certificate(s) to verify the daemon's
                                  certificate with (default: $REMINDCTL_CACERT, else
                                  the system's).
          --cert <file>           PEM client certificate for mutual TLS (default:
                                  $REMINDCTL_CERT).
          --key <file>            PEM key of --cert (default: $REMINDCTL_KEY).
          --token-file <file>     The file holding the daemon's bearer token, for --url
                                  (default: $REMINDCTL_TOKEN_FILE).
          --json                  Print the API's JSON answer exactly as received.

        OPTIONS:
          -h, --help              Show help information.

        SUBCOMMANDS:
          status                  Show the daemon's counts, sinks and notification
                                  settings.
          user                    Show a user's permissions, episode and asks.
          explain                 Explain, step by step, why a reminder is or is not
                                  due for a user.
          history                 List a user's permission changes, newest first.
          pending                 List scheduled reminders, soonest first.
          report                  Store a permission report for a user, as the app's
                                  backend would.
          forget                  Forget a user: their history and schedule are deleted.
          reload                  Make the daemon re-read its configuration file.
          dead-letters            List the events no sink could deliver, or send them
                                  again.
          config                  Work with configuration files, without the daemon.
          stats                   Show whether reminders make users fix their settings,
                                  per group and reason.
          export                  Write every user's status to standard output, one
                                  JSON document per line.
          import                  Store many reports from an NDJSON file, one report
                                  with its userID a line.

          See 'remindctl help <subcommand>' for detailed help.

        """
}
