import ArgumentParser
import RemindClient

/// `remindctl history ID`: a user's changes, newest observation first.
struct HistoryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "List a user's permission changes, newest first.",
        discussion: """
            Only changes are kept: a report identical to the current state adds no entry.

            Examples:
              remindctl history u-42
              remindctl history u-42 --limit 5
            """)

    @OptionGroup(title: "Global Options")
    var options: GlobalOptions

    @OptionGroup var user: UserIDArgument
    var id: String { user.id }

    @Option(help: ArgumentHelp("At most this many entries.", valueName: "n"))
    var limit: Int?

    func validate() throws {
        if let limit, limit < 1 { throw ValidationError("--limit must be at least 1") }
    }

    func run() throws {
        let session = try options.session()
        guard
            let history = try session.call({ client throws(DaemonClientError) in
                try client.history(id, limit: limit)
            })
        else { return }
        let terminal = session.terminal
        guard !history.entries.isEmpty else {
            terminal.line("No history for \(history.userID).")
            return
        }
        var table = Table(header: [
            "OBSERVED", "LOCATION", "ACCURACY", "SERVICES", "NOTIFICATIONS", "TIME ZONE", "ERRORS",
        ])
        for entry in history.entries {
            let permissions = entry.permissions
            table.append([
                session.time.both(entry.observedAt), permissions.location.rawValue, permissions.accuracy.rawValue,
                permissions.locationServices ? "on" : "off", permissions.notifications.rawValue,
                permissions.timeZone ?? "-",
                entry.errors.isEmpty ? "-" : entry.errors.map(\.rawValue).joined(separator: ","),
            ])
        }
        table.print(terminal) { row, column, text in
            column == 6 && !history.entries[row].errors.isEmpty ? terminal.style(text, .red) : text
        }
    }
}
