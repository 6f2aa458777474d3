import ArgumentParser
import RemindClient

/// `remindctl explain ID`: the policy's reasons, in the order it decided.
struct ExplainCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "explain",
        abstract: "Explain, step by step, why a reminder is or is not due for a user.",
        discussion: """
            Prints the policy's reasons in the order it weighs them: whether Always access is \
            missing and since when, reminders already delivered, notifications, quiet hours, \
            and when the next reminder goes out; then each configured service that a missing \
            permission stops or degrades, with what would fix it.

            Examples:
              remindctl explain u-42
              remindctl --json explain u-42 | jq -r '.reasons[].code'
            """)

    @OptionGroup(title: "Global Options")
    var options: GlobalOptions

    @OptionGroup var user: UserIDArgument
    var id: String { user.id }

    func run() throws {
        let session = try options.session()
        guard let explanation = try session.call({ client throws(DaemonClientError) in try client.explain(id) })
        else { return }
        let terminal = session.terminal
        let next = explanation.nextReminderAt.map { "next reminder \(session.time.both($0))" } ?? "no reminder due"
        terminal.line("\(terminal.style(explanation.userID, .bold)): \(next)")
        let width = String(explanation.reasons.count).count
        for (index, reason) in explanation.reasons.enumerated() {
            let number = String(index + 1)
            let padding = String(repeating: " ", count: width - number.count)
            terminal.line("  \(padding)\(number). \(reason.text)")
        }
    }
}
