import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// One daemon per state directory: an exclusive `flock` on `<state>/lock`, held for the
/// daemon's lifetime and released by the kernel when it dies, so a crash leaves no stale lock.
public final class StateLock: Sendable {
    public let path: String
    private let fd: Mutex<Int32>

    /// Takes the lock, or throws naming the lock file and the PID written in it by the holder.
    public init(directory: String) throws(StoreError) {
        path = directory + "/lock"
        let fd = try FileIO.open(path, O_RDWR | O_CREAT, mode: 0o640)
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            let code = errno
            let holder = (try? FileIO.read(path)).map { String(decoding: $0, as: UTF8.self) } ?? ""
            close(fd)
            if code == EWOULDBLOCK {
                let pid = holder.split(separator: "\n").first.map { "pid \($0)" } ?? "unknown pid"
                throw .locked(path, holder: pid)
            }
            throw .io("flock", path, errno: code)
        }
        // Only a held lock is stored: deinit releases exactly what this instance holds.
        self.fd = Mutex(fd)
        // The PID is for people and the error above; the lock itself is the flock.
        ftruncate(fd, 0)
        let pid = Array("\(getpid())\n".utf8)
        _ = pid.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
    }

    /// Gives the directory up (idempotent): the store is closed.
    public func release() {
        fd.withLock { fd in
            guard fd >= 0 else { return }
            flock(fd, LOCK_UN)
            close(fd)
            fd = -1
        }
    }

    deinit {
        release()
    }
}
