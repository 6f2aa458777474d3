import NIOPosix
import RemindCore
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Appends one JSON line per event to a file, fsync'd before the event counts as delivered.
///
/// The reference implementation of `EventSink`. Deliveries that arrive while a write is in
/// progress are group-committed: the next write appends all their lines at once and one fsync
/// covers them, so with several deliveries in flight (the dispatcher's `maxConcurrency`) the
/// sink is no longer bound to one event per fsync (about 1,000/s on a typical disk). The I/O
/// runs on the injected blocking-I/O pool: fsync blocks, and the cooperative pool has only as
/// many threads as cores. At most one drain runs at a time, so the pool holds one job of this
/// sink at most.
public final class FileSink: EventSink, Sendable {
    public let name: String
    public var type: String { "file" }
    public let path: String
    private let io: NIOThreadPool
    private let pending = Mutex(Batch())

    private struct Batch {
        var lines: [[UInt8]] = []
        var waiters: [CheckedContinuation<Result<Void, SinkError>, Never>] = []
        /// A drain is scheduled or running; it takes whatever is pending when it gets there.
        var draining = false
    }

    /// Appends made so far (each one write and one fsync), however many lines each held.
    public var commits: Int { committed.withLock { $0 } }
    private let committed = Mutex(0)

    /// Lines waiting for the next append.
    public var queued: Int { pending.withLock { $0.lines.count } }

    public init(name: String = "file", path: String, io: NIOThreadPool = .singleton) {
        self.name = name
        self.path = path
        self.io = io
    }

    public func deliver(_ event: OutboxEvent) async throws(SinkError) -> SinkOutcome {
        let line = event.bytes + [UInt8(ascii: "\n")]
        let result: Result<Void, SinkError> = await withCheckedContinuation { continuation in
            let schedule = pending.withLock { batch -> Bool in
                batch.lines.append(line)
                batch.waiters.append(continuation)
                defer { batch.draining = true }
                return !batch.draining
            }
            if schedule {
                io.submit { state in
                    guard case .active = state else { return self.failPending("the I/O pool has stopped") }
                    self.drain()
                }
            }
        }
        try result.get()
        return .delivered
    }

    /// Writes everything pending as one append and one fsync, answers its waiters, and goes on
    /// until nothing is left.
    private func drain() {
        while true {
            let batch = pending.withLock { batch -> Batch? in
                guard !batch.lines.isEmpty else {
                    batch.draining = false
                    return nil
                }
                defer { batch = Batch(draining: true) }
                return batch
            }
            guard let batch else { return }
            let result = Self.append(Array(batch.lines.joined()), to: path)
            committed.withLock { $0 += 1 }
            for waiter in batch.waiters { waiter.resume(returning: result) }
        }
    }

    /// Answers everything pending with a retryable failure (the daemon is stopping).
    private func failPending(_ message: String) {
        let batch = pending.withLock { batch -> Batch in
            defer { batch = Batch() }
            return batch
        }
        for waiter in batch.waiters { waiter.resume(returning: .failure(SinkError(message))) }
    }

    private static func append(_ bytes: [UInt8], to path: String) -> Result<Void, SinkError> {
        let fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o640)
        guard fd >= 0 else { return .failure(SinkError("open \(path): \(String(cString: strerror(errno)))")) }
        defer { close(fd) }
        var offset = 0
        let size = lseek(fd, 0, SEEK_END)
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                let message = "write \(path): \(String(cString: strerror(errno)))"
                // Leave no partial line behind: the retry appends the whole lines again.
                if size >= 0 { ftruncate(fd, size) }
                return .failure(SinkError(message))
            }
            offset += written
        }
        guard fsync(fd) == 0 else {
            return .failure(SinkError("fsync \(path): \(String(cString: strerror(errno)))"))
        }
        return .success(())
    }
}
