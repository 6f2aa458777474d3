import ArgumentParser
import RemindCore

/// The user ID every per-user command takes, checked by the daemon's own rule, so a malformed
/// one is a usage error (exit 2) rather than a request the daemon refuses.
struct UserIDArgument: ParsableArguments {
    @Argument(help: "The user's ID.")
    var id: String

    func validate() throws {
        do {
            _ = try UserID(id)
        } catch {
            throw ArgumentParser.ValidationError("user ID \"\(id)\" \(error.reason)")
        }
    }
}
