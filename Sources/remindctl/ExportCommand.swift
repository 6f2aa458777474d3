import ArgumentParser
import RemindAPI
import RemindClient
import RemindCore

/// `remindctl export`: every user's status as NDJSON on standard output, streamed from the
/// daemon as it reads its store (`GET /v1/users` with `Accept: application/x-ndjson`).
struct ExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write every user's status to standard output, one JSON document per line.",
        discussion: """
            Users come in ascending byte order of their ID, each line the status that \
            `remindctl --json user ID` prints. With --after, only the users after that ID: \
            an export cut off midway goes on from the last ID it wrote. On a terminal, \
            standard error shows the progress (users, users/s, time left).

            Examples:
              remindctl export > users.ndjson
              remindctl export | jq -c 'select(.alwaysAccess == false) | .userID'
              remindctl export --after u-41999 >> users.ndjson
            """)

    @OptionGroup(title: "Global Options")
    var options: GlobalOptions

    @Option(help: ArgumentHelp("Only the users whose ID comes after this one.", valueName: "id"))
    var after: String?

    func validate() throws {
        if let after, !UserID.isValid(after) {
            throw ValidationError("--after must be a user ID (1–128 characters from A-Z a-z 0-9 . _ ~ @ + : -)")
        }
    }

    func run() throws {
        let session = try options.session()
        let meter = ProgressMeter(noun: "users", total: nil)
        if meter.isEnabled {
            // The bar's total; without it the count and rate still show.
            meter.setTotal(try? session.client.status().value.users)
        }
        do {
            // The parts come one after another on the client's thread.
            try session.client.exportUsers(after: after) { bytes in
                Terminal.writeOutput(bytes)
                meter.advance(by: bytes.reduce(0) { $0 + ($1 == UInt8(ascii: "\n") ? 1 : 0) })
            }
        } catch {
            meter.finish()
            Terminal.error(Session.message(for: error))
            throw Session.exitCode(for: error)
        }
        meter.finish()
    }
}
