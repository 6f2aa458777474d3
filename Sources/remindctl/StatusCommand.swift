import ArgumentParser
import RemindAPI
import RemindClient
import RemindCore

/// `remindctl status`: counts, sinks and the notification settings of the running daemon.
struct StatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show the daemon's counts, sinks and notification settings.",
        discussion: """
            Examples:
              remindctl status
              remindctl --json status | jq .pendingReminders
            """)

    @OptionGroup(title: "Global Options")
    var options: GlobalOptions

    func run() throws {
        let session = try options.session()
        guard let status = try session.call({ client throws(DaemonClientError) in try client.status() }) else { return }
        Self.print(status, session)
    }

    static func print(_ status: DaemonStatus, _ session: Session) {
        let terminal = session.terminal
        let time = session.time
        let notification = status.notification
        terminal.line(
            "\(terminal.style("remindd \(status.version)", .bold)), running since \(time.both(status.startedAt))")
        terminal.line()
        let counts: [(String, Int)] = [
            ("users", status.users), ("open episodes", status.openEpisodes),
            ("pending reminders", status.pendingReminders), ("delivered", status.delivered),
            ("suppressed", status.suppressed), ("failed attempts", status.failed),
            ("dead letters", status.deadLetters), ("quarantined", status.quarantined),
        ]
        // Counts right-aligned among themselves, in one table with the sentences below them.
        let width = counts.map { String($0.1).count }.max() ?? 0
        var table = Table()
        for (name, count) in counts {
            table.append([name, String(repeating: " ", count: width - String(count).count) + String(count)])
        }
        let delay = TimeText.duration(notification.notificationTriggerDelay)
        let repeats =
            notification.showRecurringNotification
            ? "every \(delay) while Always access is missing" : "once, \(delay) after Always access is lost"
        table.append(["next reminder", time.both(status.nextReminderAt, otherwise: "none")])
        table.append(["reminders", "\(repeats): \"\(notification.notificationTitle)\""])
        let alarming: Set<String> = ["failed attempts", "dead letters", "quarantined"]
        table.print(terminal) { row, column, text in
            let isAlarm = row < counts.count && alarming.contains(counts[row].0) && counts[row].1 > 0
            return column == 1 && isAlarm ? terminal.style(text, .red) : text
        }
        terminal.line()
        var sinks = Table(header: ["SINK", "TYPE", "DELIVERED", "FAILED", "PENDING"], rightAligned: [2, 3, 4])
        for sink in status.sinks {
            sinks.append([sink.name, sink.type, "\(sink.delivered)", "\(sink.failed)", "\(sink.pending)"])
        }
        sinks.print(terminal)
        guard !status.services.isEmpty else { return }
        terminal.line()
        var services = Table(header: ["SERVICE", "ACTIVE", "DEGRADED", "PERMISSION MISSING"], rightAligned: [1, 2, 3])
        for (name, counts) in status.services.sorted(by: { $0.key < $1.key }) {
            services.append(
                [name] + ServiceState.allCases.map { String(counts[$0] ?? 0) })
        }
        services.print(terminal)
    }
}
