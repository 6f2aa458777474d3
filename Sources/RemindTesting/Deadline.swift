import Foundation
import RemindCore

/// A wait that ran past its deadline: the test fails with what it waited for instead of hanging.
public struct DeadlineExceeded: Error, CustomStringConvertible {
    public var what: String
    public var description: String { "gave up waiting for \(what)" }

    public init(what: String) {
        self.what = what
    }
}

/// Waits until `condition` holds, re-checking each time `signal` fires, for at most `limit` of
/// real time. Nothing sleeps to wait: the signal wakes the check, the deadline only bounds it.
public func waitUntil(
    _ what: String, within limit: Duration = .seconds(30), signal: AsyncSignal, _ condition: () -> Bool
) async throws {
    let deadline = ContinuousClock.now + limit
    while !condition() {
        guard ContinuousClock.now < deadline else { throw DeadlineExceeded(what: what) }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await signal.wait() }
            group.addTask { try? await Task.sleep(until: deadline, clock: .continuous) }
            await group.next()
            group.cancelAll()
        }
    }
}

/// Waits until `condition` holds, re-checking between yields, for at most `limit` of real
/// time: for state that changes on other threads with nothing to signal it.
public func waitUntil(_ what: String, within limit: Duration = .seconds(30), _ condition: () -> Bool) async throws {
    let deadline = ContinuousClock.now + limit
    while !condition() {
        guard ContinuousClock.now < deadline else { throw DeadlineExceeded(what: what) }
        await Task.yield()
    }
}

/// Waits until `condition` holds, checking it every `interval`, for at most `limit` of real
/// time: for state in another process (a daemon's files, its API, a server's lease) that
/// nothing in this one signals.
public func waitUntil(
    _ what: String, within limit: Duration = .seconds(30), every interval: Duration,
    _ condition: () async throws -> Bool
) async throws {
    let deadline = ContinuousClock.now + limit
    while try await !condition() {
        guard ContinuousClock.now < deadline else { throw DeadlineExceeded(what: what) }
        try await Task.sleep(for: interval)
    }
}

/// The same for synchronous code (a test on a thread of its own, `.ownThread`): the thread
/// sleeps `interval` between checks; `.zero` for a condition that waits by itself (a receive
/// with a timeout). A label of its own, so that an async caller never blocks its thread here.
public func waitUntil(
    _ what: String, within limit: Duration = .seconds(30), pausingThread interval: Duration,
    _ condition: () throws -> Bool
) throws {
    let deadline = ContinuousClock.now + limit
    while try !condition() {
        guard ContinuousClock.now < deadline else { throw DeadlineExceeded(what: what) }
        if interval > .zero { Thread.sleep(forTimeInterval: Double(interval / .microseconds(1)) / 1e6) }
    }
}
