import Foundation

/// The backend the end-to-end tests run their daemons against, chosen for the whole run by
/// `REMINDD_TEST_STORAGE` (`scripts/run-tests.sh` makes one pass per backend): the state
/// directory as one store (unset), divided into two parts (`parts`), or a database of the
/// test process's PostgreSQL server per daemon (`postgres`). One switch, the same tests.
public enum TestStorage: String, Sendable {
    case files
    case parts
    case postgres

    public static let current =
        ProcessInfo.processInfo.environment["REMINDD_TEST_STORAGE"].flatMap(TestStorage.init(rawValue:)) ?? .files

    /// The `storage` member of a daemon's configuration (nil for the default), and the
    /// database made for it (PostgreSQL only).
    public func member() throws -> (database: String?, member: String)? {
        switch self {
        case .files: return nil
        case .parts: return (nil, #""storage":{"parts":2}"#)
        case .postgres:
            let (database, member) = try PostgresServer.shared().storageMember()
            return (database, member)
        }
    }
}
