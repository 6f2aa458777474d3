import RemindTesting
import Testing

extension Trait where Self == ConditionTrait {
    /// A test of what only the files backend has: the state directory's files (the log, the
    /// snapshot, user files, quarantine, a full disk under them) at a single store's paths.
    /// Skipped when the suite runs against PostgreSQL or a divided state directory
    /// (`REMINDD_TEST_STORAGE=postgres|parts`; each part is a single store, tested as one).
    static var filesBackendOnly: Self {
        .enabled(if: TestStorage.current == .files, "tests the state directory's files")
    }

    /// A test of the user files in the state directory, in one store or in each of its parts:
    /// skipped on PostgreSQL, which keeps users in rows.
    static var stateDirectoryBackendsOnly: Self {
        .enabled(if: TestStorage.current != .postgres, "tests the user files in the state directory")
    }

    /// A test of the answers to repeats from memory: the daemon keeps them only where it
    /// alone writes the store (the files, in one store or in parts). On PostgreSQL every report
    /// is stored, and the test would compare that with itself.
    static var repeatAnsweringBackendsOnly: Self {
        .enabled(if: TestStorage.current != .postgres, "the store answers no repeats on the event loop")
    }
}
