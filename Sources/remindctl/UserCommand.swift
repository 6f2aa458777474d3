import ArgumentParser
import RemindAPI
import RemindClient

/// `remindctl user ID`: one user's permissions, episode and next reminder.
struct UserCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "user",
        abstract: "Show a user's permissions, episode and next reminder.",
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
        UserStatusView(status: status).print(session)
    }
}
