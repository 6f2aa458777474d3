import Testing

@testable import RemindPostgres

/// The PostgreSQL store's view of its database, driven by hand: no server, no clock.
struct DatabaseHealthTests {
    typealias Health = DatabaseHealth<String>
    let t0 = ContinuousClock.now

    func at(_ milliseconds: Int) -> ContinuousClock.Instant { t0 + .milliseconds(milliseconds) }

    func id(_ admission: Health.Admission) throws -> Health.OperationID {
        switch admission {
        case .run(let id), .waitForStart(let id): return id
        case .refuse(let reason): throw Refused(reason: reason)
        }
    }

    struct Refused: Error { var reason: String }

    /// A started store with nothing running.
    func up() -> Health {
        var health = Health()
        health.probeStarted()
        _ = health.probeReached(startedAt: at(0))
        health.started()
        return health
    }

    /// Before the first connection a request waits for it; once an attempt failed, the ones
    /// waiting are answered and new ones refused at once, until an attempt succeeds.
    @Test func requestsWaitForTheFirstConnectionUntilAnAttemptFails() throws {
        var health = Health()
        _ = try id(health.begin("a", timeout: .seconds(5), now: at(0)))
        guard case .waitForStart = health.begin("b", timeout: .seconds(5), now: at(0)) else {
            Issue.record("a request before the first connection waits for it")
            return
        }
        let (failing, retry) = health.attemptFailed(reason: "connection refused")
        #expect(Set(failing) == ["a", "b"])
        #expect(retry == .milliseconds(250))
        let refused = health.begin("c", timeout: .seconds(5), now: at(10))
        #expect(refused == .refuse(reason: "connection refused"))
        health.started()
        guard case .run = health.begin("d", timeout: .seconds(5), now: at(20)) else {
            Issue.record("a started store runs requests")
            return
        }
    }

    /// An operation running longer than `suspectAfter` asks for one probe; a probe that
    /// reaches the database leaves the operations older than it to their deadline.
    @Test func aSlowOperationAsksForOneProbe() throws {
        var health = up()
        let slow = try id(health.begin("slow", timeout: .seconds(5), now: at(100)))
        let at300 = health.check(now: at(300))
        #expect(!at300.probe)
        let at350 = health.check(now: at(350))
        #expect(at350.probe)
        let at400 = health.check(now: at(400))
        #expect(!at400.probe, "one probe at a time")
        let wasDown = health.probeReached(startedAt: at(400))
        #expect(!wasDown)
        let at1000 = health.check(now: at(1000))
        #expect(!at1000.probe, "slow for reasons of its own")
        _ = try id(health.begin("later", timeout: .seconds(5), now: at(1000)))
        let at1250 = health.check(now: at(1250))
        #expect(at1250.probe, "begun after the probe: a new suspect")
        health.end(slow)
        #expect(health.hasOperations)
    }

    /// A failed probe answers every waiting operation and refuses new ones; probes go on with
    /// a backoff from 250 ms doubling to 5 s; the first that reaches the database ends it.
    @Test func aFailedProbeRefusesUntilOneReaches() throws {
        var health = up()
        _ = try id(health.begin("a", timeout: .seconds(5), now: at(0)))
        _ = try id(health.begin("b", timeout: .seconds(5), now: at(0)))
        let firstFailure = health.connectionFailed()
        #expect(firstFailure)
        let secondFailure = health.connectionFailed()
        #expect(!secondFailure, "a probe runs already")
        let (failing, first) = health.attemptFailed(reason: "no such file")
        #expect(Set(failing) == ["a", "b"])
        #expect(!health.hasOperations)
        let refusedWhileDown = health.begin("c", timeout: .seconds(5), now: at(10))
        #expect(refusedWhileDown == .refuse(reason: "no such file"))
        let probeWhileDown = health.connectionFailed()
        #expect(!probeWhileDown, "while down the reconnect loop probes")
        var delays = [first]
        for _ in 0..<6 {
            health.probeStarted()
            delays.append(health.attemptFailed(reason: "no such file").retryAfter)
        }
        #expect(delays.map { $0 / .milliseconds(1) } == [250, 500, 1000, 2000, 4000, 5000, 5000])
        health.probeStarted()
        let recovered = health.probeReached(startedAt: at(20_000))
        #expect(recovered, "the outage ends: the pool is replaced")
        guard case .run = health.begin("d", timeout: .seconds(5), now: at(20_001)) else {
            Issue.record("requests run again after the outage")
            return
        }
        health.probeStarted()
        let afterRecovery = health.attemptFailed(reason: "again")
        #expect(afterRecovery.retryAfter == .milliseconds(250), "backoff starts anew")
    }

    /// An operation past its deadline is answered "no answer in time" and forgotten.
    @Test func operationsPastTheirDeadlineExpire() throws {
        var health = up()
        _ = try id(health.begin("short", timeout: .seconds(1), now: at(0)))
        let long = try id(health.begin("long", timeout: .seconds(3600), now: at(0)))
        let at999 = health.check(now: at(999))
        #expect(at999.expired.isEmpty)
        let at1000 = health.check(now: at(1000))
        #expect(at1000.expired == ["short"])
        let at2000 = health.check(now: at(2000))
        #expect(at2000.expired.isEmpty)
        health.end(long)
        #expect(!health.hasOperations)
    }
}
