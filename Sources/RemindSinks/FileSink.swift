import Dispatch
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
/// runs on a queue of its own: fsync blocks, and the cooperative pool has only as many
/// threads as cores.
public final class FileSink: EventSink, Sendable {
    public let name: String
    public var type: String { "file" }
    public let path: String
    private let queue: DispatchQueue
    private let pending = Mutex(Batch())

    private struct Batch {
        var lines: [[UInt8]] = []
        var waiters: [CheckedContinuation<Result<Void, SinkError>, Never>] = []
        /// A drain is scheduled or running; it takes whatever is pending when it gets there.
        var draining = false
    }

    public init(name: String = "file", path: String) {
        self.name = name
        self.path = path
        self.queue = DispatchQueue(label: "remindd.sink.\(name)")
    }

    public func deliver(_ event: OutboxEvent) async throws(SinkError) {
        let line = event.bytes + [UInt8(ascii: "\n")]
        let result: Result<Void, SinkError> = await withCheckedContinuation { continuation in
            let schedule = pending.withLock { batch -> Bool in
                batch.lines.append(line)
                batch.waiters.append(continuation)
                defer { batch.draining = true }
                return !batch.draining
            }
            if schedule { queue.async { self.drain() } }
        }
        try result.get()
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
            for waiter in batch.waiters { waiter.resume(returning: result) }
        }
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
