import Testing

/// Runs each test case of the suite (or test) it is applied to on a ``ThreadExecutor`` of its
/// own, so that a test that waits synchronously blocks its own thread and not one of the
/// cooperative pool's, which every other test of the run shares (one thread per core).
///
/// For the suites that start the daemon, run commands or wait on sockets with deadlines:
///
/// ```swift
/// @Suite(.ownThread)
/// struct EndToEndTests { … }
/// ```
///
/// Actors the test calls still run on their own executors; only the test's task (and its child
/// tasks, which inherit the preference) runs on the thread.
public struct OwnThreadTrait: TestTrait, SuiteTrait, TestScoping {
    public var isRecursive: Bool { true }

    /// Each test case gets the scope; a suite as a whole does not (its tests get their own).
    public func scopeProvider(for test: Test, testCase: Test.Case?) -> Self? {
        testCase == nil ? nil : self
    }

    public func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        let executor = ThreadExecutor(name: "test \(test.name)")
        defer { executor.shutdown() }
        try await withTaskExecutorPreference(executor) { try await function() }
    }
}

extension Trait where Self == OwnThreadTrait {
    /// Each test case runs on a thread of its own (``OwnThreadTrait``).
    public static var ownThread: Self { Self() }
}
