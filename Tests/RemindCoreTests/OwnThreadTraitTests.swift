import Foundation
import RemindTesting
import Testing

/// The trait the end-to-end suites use to wait synchronously without holding a thread of the
/// cooperative pool.
@Suite(.ownThread)
struct OwnThreadTraitTests {
    /// The test body and the child tasks it starts run on the test's own thread.
    @Test func testAndItsChildTasksRunOnTheTestsThread() async {
        let body = Self.currentThreadName()
        #expect(body?.hasPrefix("test testAndItsChildTasksRunOnTheTestsThread") == true, "\(body ?? "nil")")
        async let child = Self.currentThreadName()
        #expect(await child == body)
    }

    /// Each case of a parameterized test has a thread of its own, which ends with it.
    @Test(arguments: 0..<2) func eachCaseHasAThreadOfItsOwn(case: Int) async {
        let name = Self.currentThreadName()
        #expect(name?.hasPrefix("test eachCaseHasAThreadOfItsOwn") == true, "\(name ?? "nil")")
    }

    // `Thread.current` is not available in async code; a synchronous function may read it.
    static func currentThreadName() -> String? {
        ThreadExecutor.currentName
    }
}

/// Outside the trait a test runs on the cooperative pool.
struct WithoutOwnThreadTests {
    @Test func runsOnThePool() async {
        #expect(OwnThreadTraitTests.currentThreadName() == nil)
    }
}
