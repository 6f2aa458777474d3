import ArgumentParser
import RemindAPI
import RemindClient

/// `remindctl user ID`: one user's permissions, episode and next reminder.
struct UserCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "user",
        abstract: "Show a user's permissions, episode and asks.",
        discussion: """
            Examples:
              remindctl user u-42
              remindctl --json user u-42
            """)

    @OptionGroup(title: "Global Options")
    var options: GlobalOptions

    @OptionGroup var user: UserIDArgument
    var id: String { user.id }

    func run() throws {
        let session = try options.session()
        guard let status = try session.call({ client throws(DaemonClientError) in try client.user(id) }) else {
            return
        }
        // The ask the next report would get, as `explain` words it (absent while inApp is off).
        // Asked quietly: the status is what this command answers, with or without it.
        let explanation = try? session.client.explain(id).value
        let nextAsk = explanation?.reasons.first { $0.code == "ask" }?.text
        UserStatusView(status: status, nextAsk: nextAsk).print(session)
    }
}
