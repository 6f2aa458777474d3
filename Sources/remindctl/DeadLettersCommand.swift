import ArgumentParser
import RemindAPI
import RemindClient

/// `remindctl dead-letters [list|replay [ID…]]`: events a sink gave up on.
struct DeadLettersCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dead-letters",
        abstract: "List the events no sink could deliver, or send them again.",
        discussion: """
            An event becomes a dead letter for one sink after its last retry, or at once on a \
            permanent failure (a webhook's 400). Replaying puts it back in that sink's queue.

            Examples:
              remindctl dead-letters
              remindctl dead-letters replay u-42/1794736800/1
              remindctl dead-letters replay
            """,
        subcommands: [List.self, Replay.self],
        defaultSubcommand: List.self)
}

extension DeadLettersCommand {
    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "List the dead letters (the default).",
            discussion: """
                Examples:
                  remindctl dead-letters list
                  remindctl --json dead-letters list | jq -r '.deadLetters[].id'
                """)

        @OptionGroup(title: "Global Options")
        var options: GlobalOptions

        func run() throws {
            let session = try options.session()
            guard let letters = try session.call({ client throws(DaemonClientError) in try client.deadLetters() })
            else { return }
            let terminal = session.terminal
            guard !letters.isEmpty else {
                terminal.line("No dead letters.")
                return
            }
            var table = Table(
                header: ["EVENT", "TYPE", "SINK", "ATTEMPTS", "DEAD SINCE", "LAST ERROR"], rightAligned: [3])
            for letter in letters {
                table.append([
                    letter.id, letter.eventType ?? "-", letter.sink, "\(letter.attempts)",
                    session.time.both(letter.deadLetteredAt), Self.oneLine(letter.lastError),
                ])
            }
            table.print(terminal)
        }

        /// An error as one table cell: a program's output may span lines and end in blanks.
        static func oneLine(_ text: String) -> String {
            text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        }
    }

    struct Replay: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Send dead letters again: those named, or all.",
            discussion: """
                Examples:
                  remindctl dead-letters replay u-42/1794736800/1 u-7/1794740400/2
                  remindctl dead-letters replay
                """)

        @OptionGroup(title: "Global Options")
        var options: GlobalOptions

        @Argument(help: ArgumentHelp("Event ids to replay (default: all).", valueName: "id"))
        var ids: [String] = []

        func run() throws {
            let session = try options.session()
            guard
                let count = try session.call({ client throws(DaemonClientError) in
                    try client.replayDeadLetters(ids: ids)
                })
            else { return }
            // The daemon answers 0 for ids it does not hold; a person who named some wants to know.
            if count == 0 && !ids.isEmpty {
                Terminal.error("none of the named events is a dead letter (see remindctl dead-letters)")
                throw ExitCode.daemonFailure
            }
            session.terminal.line(
                "Replayed \(TimeText.plural(Int64(count), "event")); the sinks deliver them again.")
        }
    }
}
