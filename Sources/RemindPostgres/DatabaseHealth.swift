/// What the PostgreSQL store knows of its database, and what follows from it: whether a
/// request may go to the database or is refused at once, when to probe, and which waiting
/// operations to give up on.
///
/// A state machine without I/O or clock: the store tells it what happened, with the time, and
/// carries out what it answers (answer these waiters, probe now, replace the pool). A request
/// never waits for a connection attempt known to fail:
/// - before the first connection a request waits for it (a socket-activated daemon's first
///   request arrives before the database answered), but once an attempt failed, requests are
///   refused until one succeeds;
/// - an operation that fails as if the connection were gone, or runs longer than
///   `suspectAfter`, starts a probe (a connection of its own and `SELECT 1`); the pool itself
///   says nothing of the connections it fails to make, its waiters just wait;
/// - a failed probe makes the database down: every waiting operation is answered at once, new
///   ones are refused, and probes go on with a backoff until one reaches the database.
struct DatabaseHealth<Waiter> {
    typealias Instant = ContinuousClock.Instant

    enum Phase: Equatable {
        /// Before the first connection and migration; `failure` once an attempt failed.
        case starting(failure: String?)
        case up
        /// A probe failed for `reason`; requests are refused until one succeeds.
        case down(reason: String)
    }

    enum Admission: Equatable {
        case run(OperationID)
        /// Before the first connection: run once the store is ready.
        case waitForStart(OperationID)
        case refuse(reason: String)
    }

    struct OperationID: Hashable {
        fileprivate let raw: UInt64
    }

    /// What a look at the running operations asks for.
    struct Check {
        /// Past their deadline: answered "no answer in time".
        var expired: [Waiter] = []
        /// An operation runs suspiciously long: probe now.
        var probe = false
    }

    private struct Operation {
        var started: Instant
        var deadline: Instant
        var waiter: Waiter
    }

    /// How long an operation may run before the database is probed. Nothing is given up
    /// then: a probe that reaches the database leaves slow operations to their deadline.
    let suspectAfter: Duration
    let initialBackoff: Duration
    let maximumBackoff: Duration

    private(set) var phase: Phase = .starting(failure: nil)
    private var operations: [UInt64: Operation] = [:]
    private var nextID: UInt64 = 0
    /// Whether a probe is under way (or asked for): one at a time.
    private(set) var probing = false
    /// When the last probe that reached the database began: an operation begun before that is
    /// slow for reasons of its own (a lock, a large statement), not for a lost connection.
    private var reachedAt: Instant?
    private var backoff: Duration

    init(
        suspectAfter: Duration = .milliseconds(250), initialBackoff: Duration = .milliseconds(250),
        maximumBackoff: Duration = .seconds(5)
    ) {
        self.suspectAfter = suspectAfter
        self.initialBackoff = initialBackoff
        self.maximumBackoff = maximumBackoff
        self.backoff = initialBackoff
    }

    var hasOperations: Bool { !operations.isEmpty }

    var isDown: Bool {
        if case .down = phase { return true }
        return false
    }

    /// An operation wants the database, for at most `timeout`.
    mutating func begin(_ waiter: Waiter, timeout: Duration, now: Instant) -> Admission {
        let wait: Bool
        switch phase {
        case .down(let reason), .starting(failure: let reason?): return .refuse(reason: reason)
        case .starting(failure: nil): wait = true
        case .up: wait = false
        }
        nextID += 1
        operations[nextID] = Operation(started: now, deadline: now + timeout, waiter: waiter)
        let id = OperationID(raw: nextID)
        return wait ? .waitForStart(id) : .run(id)
    }

    /// The operation is answered (or its caller gave up): forget it.
    mutating func end(_ id: OperationID) {
        operations[id.raw] = nil
    }

    /// An operation failed as if the connection were gone; true when a probe should start.
    mutating func connectionFailed() -> Bool {
        startProbe()
    }

    /// A look at the running operations, every few tens of milliseconds while there are any.
    mutating func check(now: Instant) -> Check {
        var check = Check()
        var suspicious = false
        for (id, operation) in operations {
            if operation.deadline <= now {
                check.expired.append(operation.waiter)
                operations[id] = nil
            } else if operation.started + suspectAfter <= now, reachedAt.map({ operation.started >= $0 }) ?? true {
                suspicious = true
            }
        }
        check.probe = suspicious && startProbe()
        return check
    }

    /// Probes run while up only: before the first connection and while down, the store's
    /// connect and reconnect loops probe on their own schedule.
    private mutating func startProbe() -> Bool {
        guard phase == .up, !probing else { return false }
        probing = true
        return true
    }

    /// A probe (or the start-up loop) is about to try.
    mutating func probeStarted() {
        probing = true
    }

    /// The probe that began at `startedAt` reached the database. True when that ends an
    /// outage: the pool is then replaced (its own backoff may have grown to a minute).
    mutating func probeReached(startedAt: Instant) -> Bool {
        probing = false
        reachedAt = startedAt
        backoff = initialBackoff
        guard isDown else { return false }
        phase = .up
        return true
    }

    /// A probe or a start-up attempt failed: the waiting operations to answer now, and how
    /// long to wait before the next attempt (250 ms doubling to 5 s).
    mutating func attemptFailed(reason: String) -> (failing: [Waiter], retryAfter: Duration) {
        probing = false
        switch phase {
        case .starting: phase = .starting(failure: reason)
        case .up, .down: phase = .down(reason: reason)
        }
        let failing = operations.values.map(\.waiter)
        operations = [:]
        let delay = backoff
        backoff = min(backoff * 2, maximumBackoff)
        return (failing, delay)
    }

    /// The first connection and the migration are done.
    mutating func started() {
        phase = .up
        probing = false
        backoff = initialBackoff
    }
}
