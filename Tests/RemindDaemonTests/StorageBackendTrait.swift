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
}
