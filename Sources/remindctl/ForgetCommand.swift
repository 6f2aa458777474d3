import ArgumentParser
import Foundation
import RemindClient

#if canImport(Glibc)
    import Glibc
#endif

/// `remindctl forget ID`: removes a user, their history and their schedule.
struct ForgetCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "forget",
        abstract: "Forget a user: their history and schedule are deleted.",
        discussion: """
            On a terminal remindctl asks first; elsewhere (scripts, pipes) it needs --yes.
            No event is emitted, and reminders already delivered are not withdrawn.

            Examples:
              remindctl forget u-42
              remindctl forget u-42 --yes
            """)

    @OptionGroup(title: "Global Options")
    var options: GlobalOptions

    @OptionGroup var user: UserIDArgument
    var id: String { user.id }

    @Flag(help: "Do not ask; required when standard input is not a terminal.")
    var yes = false

    func validate() throws {
        // Deleting is irreversible: without a person to ask, the script must say so itself.
        if !yes && isatty(STDIN_FILENO) != 1 {
            throw ValidationError("standard input is not a terminal, so nobody can confirm: pass --yes to forget \(id)")
        }
    }

    func run() throws {
        let session = try options.session()
        if !yes {
            FileHandle.standardError.write(Data("Forget \(id) and their whole history? [y/N] ".utf8))
            let answer = readLine()?.trimmingCharacters(in: .whitespaces).lowercased() ?? ""
            guard answer == "y" || answer == "yes" else {
                Terminal.error("\(id) was not forgotten")
                throw ExitCode.daemonFailure
            }
        }
        guard try session.call({ client throws(DaemonClientError) in try client.forget(id) }) != nil else { return }
        session.terminal.line("Forgot \(id).")
    }
}
