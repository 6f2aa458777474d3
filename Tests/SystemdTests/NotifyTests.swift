import RemindTesting
import Systemd
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

extension ProcessEnvironmentTests {
    @Suite
    struct NotifyTests {
        let notifier = SystemdNotifier()

        /// A daemon that finished start-up sends READY=1 and its status in one datagram.
        @Test func readySendsReadyAndStatusInOneDatagram() throws {
            let listener = try DatagramListener()
            let result = withEnvironment(["NOTIFY_SOCKET": listener.path]) {
                self.notifier.ready(status: "3 users, 2 pending reminders")
            }
            #expect(result == .sent)
            #expect(try listener.receive() == "READY=1\nSTATUS=3 users, 2 pending reminders")
        }

        /// A reload announces RELOADING=1 with the current CLOCK_MONOTONIC time in the same datagram.
        @Test func reloadingSendsMonotonicTimestampInSameDatagram() throws {
            let listener = try DatagramListener()
            let before = monotonicMicroseconds()
            let result = withEnvironment(["NOTIFY_SOCKET": listener.path]) { self.notifier.reloading() }
            let after = monotonicMicroseconds()
            #expect(result == .sent)
            let lines = try #require(try listener.receive()).split(separator: "\n").map(String.init)
            #expect(lines.count == 2)
            #expect(lines.first == "RELOADING=1")
            let stamp = try #require(lines.last?.split(separator: "=", maxSplits: 1))
            #expect(stamp.first == "MONOTONIC_USEC")
            let microseconds = try #require(stamp.last.flatMap { UInt64($0) })
            #expect(microseconds >= before && microseconds <= after)
        }

        /// Shutdown sends STOPPING=1, and the environment stays set so that later messages still get through.
        @Test func stoppingSendsStoppingAndKeepsEnvironment() throws {
            let listener = try DatagramListener()
            let (stopping, status, keptPath) = withEnvironment(["NOTIFY_SOCKET": listener.path]) {
                (
                    self.notifier.stopping(), self.notifier.status("draining"),
                    getenv("NOTIFY_SOCKET").map { String(cString: $0) }
                )
            }
            #expect(stopping == .sent)
            #expect(status == .sent)
            #expect(keptPath == listener.path)
            #expect(try listener.receive() == "STOPPING=1")
            #expect(try listener.receive() == "STATUS=draining")
        }

        /// Watchdog pings, errno reports and status lines with newlines use the protocol's exact assignments.
        @Test func watchdogErrnoAndMultiLineStatusUseProtocolAssignments() throws {
            let listener = try DatagramListener()
            withEnvironment(["NOTIFY_SOCKET": listener.path]) {
                self.notifier.watchdog()
                self.notifier.errno(ENOENT, status: "state directory\nmissing")
                self.notifier.exitStatus(3)
                self.notifier.notify(.extendTimeout(.milliseconds(1500)), .custom(name: "X_REMINDD", value: "a\nb"))
            }
            #expect(try listener.receive() == "WATCHDOG=1")
            #expect(try listener.receive() == "ERRNO=\(ENOENT)\nSTATUS=state directory missing")
            #expect(try listener.receive() == "EXIT_STATUS=3")
            #expect(try listener.receive() == "EXTEND_TIMEOUT_USEC=1500000\nX_REMINDD=a b")
        }

        /// Outside systemd (no NOTIFY_SOCKET) notifying does nothing and says it is not supported.
        @Test func notSupportedWhenNotifySocketUnset() {
            let result = withEnvironment(["NOTIFY_SOCKET": nil]) { self.notifier.ready(status: "ready") }
            #expect(result == .notSupported)
        }

        /// A NOTIFY_SOCKET that names no socket is a failure carrying the errno, not "not supported".
        @Test func failedWhenNotifySocketDoesNotExist() throws {
            let listener = try DatagramListener()
            let missing = listener.directory + "/missing.sock"
            let result = withEnvironment(["NOTIFY_SOCKET": missing]) { self.notifier.ready() }
            #expect(result == .failed(errno: ENOENT))
        }

        /// A service manager that stops reading never blocks the sender: once the socket's queue
        /// is full, messages are dropped with EAGAIN (a soak found a daemon stuck in sd_notify
        /// with every cooperative thread blocked on a STATUS line).
        @Test func fullQueueDropsInsteadOfBlocking() throws {
            let listener = try DatagramListener()
            let results = withEnvironment(["NOTIFY_SOCKET": listener.path]) {
                (0..<500).map { self.notifier.status("status \($0)") }
            }
            #expect(results.first == .sent)
            #expect(results.last == .failed(errno: EAGAIN))
            #expect(try listener.receive() == "STATUS=status 0")
        }

        /// An abstract-namespace NOTIFY_SOCKET (`@name`) is reached too.
        @Test func abstractNamespaceSocket() throws {
            let name = "remindd-notify-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
            let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            defer { close(fd) }
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            let bytes = Array(name.utf8)
            withUnsafeMutableBytes(of: &address.sun_path) { path in
                for (index, byte) in bytes.enumerated() { path[index + 1] = byte }
            }
            let length = socklen_t(MemoryLayout<sa_family_t>.size + 1 + bytes.count)
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
            }
            #expect(bound == 0)
            let result = withEnvironment(["NOTIFY_SOCKET": "@" + name]) { self.notifier.watchdog() }
            #expect(result == .sent)
            var buffer = [UInt8](repeating: 0, count: 64)
            let received = recv(fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
            #expect(received > 0 && String(decoding: buffer.prefix(max(0, received)), as: UTF8.self) == "WATCHDOG=1")
        }
    }
}

private func monotonicMicroseconds() -> UInt64 {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return UInt64(now.tv_sec) * 1_000_000 + UInt64(now.tv_nsec) / 1_000
}
