import ArgumentParser
import RemindClient

/// `remindctl pending`: scheduled reminders, soonest first.
struct PendingCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "pending",
        abstract: "List scheduled reminders, soonest first.",
        discussion: """
            --before takes an RFC 3339 timestamp or a span from now (90s, 30m, 12h, 7d).

            Examples:
              remindctl pending
              remindctl pending --before 7d --limit 20
              remindctl pending --before 2026-12-01T00:00:00Z
            """)

    @OptionGroup(title: "Global Options")
    var options: GlobalOptions

    @Option(
        help: ArgumentHelp("Only reminders due before this time: RFC 3339, or a span such as 7d.", valueName: "time"))
    var before: TimeArgument?

    @Option(help: ArgumentHelp("At most this many reminders (the daemon's default: 100).", valueName: "n"))
    var limit: Int?

    func validate() throws {
        if let limit, limit < 1 { throw ValidationError("--limit must be at least 1") }
    }

    func run() throws {
        let session = try options.session()
        guard
            let reminders = try session.call({ client throws(DaemonClientError) in
                try client.pendingReminders(dueBefore: before?.date, limit: limit)
            })
        else { return }
        let terminal = session.terminal
        guard !reminders.isEmpty else {
            terminal.line(
                before.map { "No reminders due before \(session.time.both($0.date))." } ?? "No reminders pending.")
            return
        }
        var table = Table(header: ["DUE", "USER", "SEQUENCE", "REASON"], rightAligned: [2])
        for reminder in reminders {
            table.append([
                session.time.both(reminder.dueAt), reminder.userID, "\(reminder.sequence)", reminder.reason.rawValue,
            ])
        }
        table.print(terminal)
    }
}
