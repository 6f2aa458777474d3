import Foundation
import Synchronization

/// A clock that moves only when a test says so, and tells the test when something sleeps on
/// it: tests advance time to exactly where the code under test waits, never sleeping for real.
///
/// It is also the wall clock (`wallNow`): `epoch` plus the time advanced, so code that reads
/// dates and sleeps on durations sees one consistent time.
public final class ManualClock: Clock, Sendable {
    public struct Instant: InstantProtocol, Sendable {
        public var offset: Duration

        public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        public func duration(to other: Instant) -> Duration { other.offset - offset }
        public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private struct Sleeper {
        var deadline: Instant
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now = Instant(offset: .zero)
        /// How far the wall clock was set away from the monotonic time (`jumpWallClock`).
        var wallJump: Duration = .zero
        var sleepers: [UInt64: Sleeper] = [:]
        var nextID: UInt64 = 0
        var sleepWaiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())
    public let epoch: Date

    public init(epoch: Date = Date(timeIntervalSince1970: 1_794_736_800)) {
        self.epoch = epoch
    }

    public var now: Instant { state.withLock { $0.now } }
    public var minimumResolution: Duration { .nanoseconds(1) }

    /// The wall-clock time that goes with `now`.
    public var wallNow: Date {
        let offset = state.withLock { ($0.now.offset + $0.wallJump).components }
        return epoch.addingTimeInterval(TimeInterval(offset.seconds) + TimeInterval(offset.attoseconds) / 1e18)
    }

    /// Sets the wall clock forward (or back, with a negative duration) without time passing:
    /// what an operator or NTP does to a running daemon. Sleepers are not woken.
    public func jumpWallClock(by duration: Duration) {
        state.withLock { $0.wallJump += duration }
    }

    /// How many tasks are sleeping on this clock right now.
    public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    public func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let (resumeNow, waiters) = state.withLock { state -> (Bool, [CheckedContinuation<Void, Never>]) in
                    if Task.isCancelled || deadline <= state.now { return (true, []) }
                    state.sleepers[id] = Sleeper(deadline: deadline, continuation: continuation)
                    defer { state.sleepWaiters = [] }
                    return (false, state.sleepWaiters)
                }
                if resumeNow {
                    if Task.isCancelled {
                        continuation.resume(throwing: CancellationError())
                    } else {
                        continuation.resume()
                    }
                }
                for waiter in waiters { waiter.resume() }
            }
        } onCancel: {
            let sleeper = state.withLock { $0.sleepers.removeValue(forKey: id) }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves time forward and wakes every sleeper whose deadline has come.
    public func advance(by duration: Duration) {
        let due = state.withLock { state -> [CheckedContinuation<Void, any Error>] in
            state.now = state.now.advanced(by: duration)
            let now = state.now
            let due = state.sleepers.filter { $0.value.deadline <= now }
            for id in due.keys { state.sleepers[id] = nil }
            return due.values.map(\.continuation)
        }
        for continuation in due { continuation.resume() }
    }

    /// Returns once at least `count` tasks sleep on the clock: the signal that the code under
    /// test has reached its wait.
    public func waitForSleepers(_ count: Int = 1) async {
        await waitForSleepers { $0.count >= count }
    }

    /// Returns once something sleeps until exactly `deadline` (an offset from the start): the
    /// signal that the code under test has computed that wake-up.
    public func waitForSleeper(until deadline: Duration) async {
        await waitForSleepers { $0.contains(Instant(offset: deadline)) }
    }

    private func waitForSleepers(where condition: @escaping ([Instant]) -> Bool) async {
        func satisfied(_ state: State) -> Bool { condition(state.sleepers.values.map(\.deadline)) }
        while !state.withLock({ satisfied($0) }) {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let ready = state.withLock { state -> Bool in
                    if satisfied(state) { return true }
                    state.sleepWaiters.append(continuation)
                    return false
                }
                if ready { continuation.resume() }
            }
        }
    }
}
