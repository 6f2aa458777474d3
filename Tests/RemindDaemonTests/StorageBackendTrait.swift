import Testing

extension Trait where Self == ConditionTrait {
    /// A test of what only the files backend has: the state directory's files (the log, the
    /// snapshot, user files, quarantine, a full disk under them). Skipped when the suite runs
    /// against PostgreSQL (`REMINDD_TEST_STORAGE=postgres`).
    static var filesBackendOnly: Self {
        .enabled(if: !DaemonProcess.usesPostgres, "tests the state directory's files")
    }
}
