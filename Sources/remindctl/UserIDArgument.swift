import ArgumentParser
import RemindCore

/// Checks a user ID by the daemon's own rule, so a malformed one is a usage error (exit 2)
/// rather than a request the daemon refuses.
enum UserIDArgument {
    static func validate(_ id: String) throws {
        do {
            _ = try UserID(id)
        } catch {
            throw ArgumentParser.ValidationError("user ID \"\(id)\" \(error.reason)")
        }
    }
}
