import Dispatch
import RemindCore

#if canImport(Glibc)
    import Glibc
#endif

/// Appends one JSON line per event to a file, fsync'd before the event counts as delivered.
///
/// The reference implementation of `EventSink`. The file is opened per batch of work and
/// written on a dedicated queue: fsync blocks, and the cooperative pool has only as many
/// threads as cores.
public struct FileSink: EventSink {
    public let name: String
    public var type: String { "file" }
    public let path: String
    private let queue: DispatchQueue

    public init(name: String = "file", path: String) {
        self.name = name
        self.path = path
        self.queue = DispatchQueue(label: "remindd.sink.\(name)")
    }

    public func deliver(_ event: OutboxEvent) async throws(SinkError) {
        let line = event.bytes + [UInt8(ascii: "\n")]
        let path = self.path
        let result: Result<Void, SinkError> = await withCheckedContinuation { continuation in
            queue.async { continuation.resume(returning: Self.append(line, to: path)) }
        }
        try result.get()
    }

    private static func append(_ line: [UInt8], to path: String) -> Result<Void, SinkError> {
        let fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o640)
        guard fd >= 0 else { return .failure(SinkError("open \(path): \(String(cString: strerror(errno)))")) }
        defer { close(fd) }
        var offset = 0
        let size = lseek(fd, 0, SEEK_END)
        while offset < line.count {
            let written = line[offset...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                let message = "write \(path): \(String(cString: strerror(errno)))"
                // Leave no partial line behind: the retry appends the whole line again.
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
