import RemindTesting
import Systemd
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

extension ProcessEnvironmentTests {
    @Suite(.ownThread)
    struct WatchdogTests {
        /// With WatchdogSec=2s systemd sets WATCHDOG_USEC for this PID; pings are due every second.
        @Test func intervalIsHalfTheTimeoutWhenEnabledForThisProcess() throws {
            let watchdog = try withEnvironment(["WATCHDOG_USEC": "2000000", "WATCHDOG_PID": "\(getpid())"]) {
                try Watchdog.fromEnvironment()
            }
            #expect(watchdog.timeout == .seconds(2))
            #expect(watchdog.interval == .seconds(1))
        }

        /// Without WATCHDOG_USEC the watchdog is off.
        @Test func intervalIsNilWhenWatchdogUnset() throws {
            let watchdog = try withEnvironment(["WATCHDOG_USEC": nil, "WATCHDOG_PID": nil]) {
                try Watchdog.fromEnvironment()
            }
            #expect(watchdog.interval == nil)
        }

        /// A child that inherited its parent's WATCHDOG_* variables must not ping for it.
        @Test func intervalIsNilWhenWatchdogBelongsToAnotherProcess() throws {
            let watchdog = try withEnvironment(["WATCHDOG_USEC": "2000000", "WATCHDOG_PID": "1"]) {
                try Watchdog.fromEnvironment()
            }
            #expect(watchdog.interval == nil)
        }

        /// A WATCHDOG_USEC that is not a number is reported rather than taken as "off".
        @Test func throwsWhenWatchdogUsecIsMalformed() {
            #expect(throws: SystemdError.invalidWatchdog(errno: EINVAL)) {
                try withEnvironment(["WATCHDOG_USEC": "soon", "WATCHDOG_PID": nil]) { try Watchdog.fromEnvironment() }
            }
        }
    }
}
