import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// An append-only log in `wal/<segment>.wal`, group-committed: many concurrent
/// appends share one `write` and one `fdatasync`.
///
/// This is what makes a reply to a report mean "on disk" at tens of thousands of reports a
/// second: one writer doing an fsync per report manages a few hundred to a thousand a second
/// here; a batch of a hundred records per fdatasync, tens of thousands.
///
/// Each entry is one line ending in a tab and its checksum (`Checksum`). A crash can tear only
/// the tail (an append is acknowledged after its fdatasync), so replay cuts an incomplete or
/// failing run of lines at the end of the last segment; a failing line with good ones after it
/// is damage, not a crash, and is reported instead of cutting off what follows.
///
/// The writer is a thread of its own, not a job on the store's I/O pool: every report's reply
/// waits for its fdatasync, so it must never queue behind a checkpoint or a batch of cold
/// reads, and it sleeps on its condition between batches rather than holding a pool thread.
public final class WriteAheadLog: @unchecked Sendable {
    public let directory: String

    private enum Item {
        case append([[UInt8]], CheckedContinuation<Void, any Error>?)
        case rotate(CheckedContinuation<UInt64, any Error>)
    }

    private struct Shared {
        var items: [Item] = []
        var stopped = false
    }

    // Guarded by `condition`: the writer thread sleeps on it until items arrive.
    private let condition = NSCondition()
    private var shared = Shared()
    // Owned by the writer thread after start.
    private var fd: Int32 = -1
    private var size: Int = 0
    private let segmentState: Mutex<UInt64>
    private let written = Atomic<Int>(0)
    private var thread: Thread?

    /// Opens the log for appending to a new segment after the highest one present.
    public init(directory: String) throws(StoreError) {
        self.directory = directory
        try FileIO.makeDirectories(directory)
        let next = (Self.segments(in: directory).last ?? 0) + 1
        segmentState = Mutex(next)
        fd = try FileIO.open(Self.path(directory, next), O_WRONLY | O_CREAT | O_APPEND)
        try FileIO.fsyncDirectory(directory)
        let thread = Thread { [self] in self.run() }
        thread.name = "remindd-wal"
        self.thread = thread
        thread.start()
    }

    /// Bytes made durable since the log was opened (for `remindd_log_bytes_total`).
    public var bytesWritten: Int { written.load(ordering: .relaxed) }

    /// The segment new appends go to.
    public var currentSegment: UInt64 { segmentState.withLock { $0 } }

    static func path(_ directory: String, _ segment: UInt64) -> String {
        let digits = String(segment)
        return "\(directory)/\(String(repeating: "0", count: max(0, 12 - digits.count)))\(digits).wal"
    }

    /// Segment numbers present, ascending.
    public static func segments(in directory: String) -> [UInt64] {
        FileIO.list(directory).compactMap { name in
            name.hasSuffix(".wal") ? UInt64(name.dropLast(4)) : nil
        }.sorted()
    }

    /// Appends one entry (a line, without its newline) and returns once it is on disk.
    public func append(_ line: [UInt8]) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            enqueue(.append([line], continuation))
        }
    }

    /// Appends several entries and returns once all are on disk.
    public func append(batch lines: [[UInt8]]) async throws {
        guard !lines.isEmpty else { return }
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            enqueue(.append(lines, continuation))
        }
    }

    /// Appends an entry that may be lost in a crash (it rides with the next durable batch):
    /// used for delivery acknowledgements, whose loss only means a duplicate delivery.
    public func appendLazily(_ line: [UInt8]) {
        enqueue(.append([line], nil))
    }

    /// Ends the current segment once everything appended before is durable and starts the
    /// next; returns the new segment's number. Everything before it is in lower segments.
    public func rotate() async throws -> UInt64 {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<UInt64, any Error>) in
            enqueue(.rotate(continuation))
        }
    }

    /// Deletes segments below `segment`: their contents are durable elsewhere.
    public func removeSegments(before segment: UInt64) {
        for old in Self.segments(in: directory) where old < segment {
            unlink(Self.path(directory, old))
        }
    }

    public func stop() {
        condition.lock()
        shared.stopped = true
        condition.signal()
        condition.unlock()
    }

    /// Deletes the segment this log opened when nothing was ever appended: a store that was
    /// only read (a migration's source) leaves its log as it found it. Call after `stop`.
    func removeIfUnused() {
        guard bytesWritten == 0 else { return }
        unlink(Self.path(directory, currentSegment))
        try? FileIO.fsyncDirectory(directory)
    }

    private func enqueue(_ item: Item) {
        condition.lock()
        if shared.stopped {
            condition.unlock()
            switch item {
            case .append(_, let continuation): continuation?.resume(throwing: CancellationError())
            case .rotate(let continuation): continuation.resume(throwing: CancellationError())
            }
            return
        }
        shared.items.append(item)
        condition.signal()
        condition.unlock()
    }

    private func run() {
        while true {
            condition.lock()
            while shared.items.isEmpty && !shared.stopped { condition.wait() }
            let items = shared.items
            shared.items = []
            let stopped = shared.stopped
            condition.unlock()
            process(items)
            if stopped && items.isEmpty {
                close(fd)
                return
            }
        }
    }

    /// Writes the batch up to each rotation with one write and one fdatasync, then answers
    /// every waiter of that part.
    private func process(_ items: [Item]) {
        var buffer: [UInt8] = []
        var waiters: [CheckedContinuation<Void, any Error>] = []
        func flush() {
            guard !buffer.isEmpty || !waiters.isEmpty else { return }
            let result = buffer.isEmpty ? .success(()) : commit(buffer)
            for waiter in waiters {
                switch result {
                case .success: waiter.resume()
                case .failure(let error): waiter.resume(throwing: error)
                }
            }
            buffer.removeAll(keepingCapacity: true)
            waiters.removeAll(keepingCapacity: true)
        }
        for item in items {
            switch item {
            case .append(let lines, let continuation):
                for line in lines {
                    Checksum.appendLine(line[...], to: &buffer)
                    buffer.append(UInt8(ascii: "\n"))
                }
                if let continuation { waiters.append(continuation) }
            case .rotate(let continuation):
                flush()
                do {
                    continuation.resume(returning: try startNextSegment())
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        }
        flush()
    }

    private func commit(_ bytes: [UInt8]) -> Result<Void, StoreError> {
        let path = Self.path(directory, currentSegment)
        let fd = fd
        let result = Result { () throws(StoreError) in
            try FileIO.writeAll(fd, bytes, path: path)
            guard fdatasync(fd) == 0 else { throw StoreError.io("fdatasync", path) }
        }
        switch result {
        case .success:
            size += bytes.count
            written.add(bytes.count, ordering: .relaxed)
            return .success(())
        case .failure(let error):
            // Cut off whatever part of the batch landed, so the log holds only whole,
            // acknowledged entries and the next batch starts on a clean line.
            ftruncate(fd, off_t(size))
            return .failure(error)
        }
    }

    private func startNextSegment() throws(StoreError) -> UInt64 {
        let next = currentSegment + 1
        let newFD = try FileIO.open(Self.path(directory, next), O_WRONLY | O_CREAT | O_APPEND)
        try FileIO.fsyncDirectory(directory)
        close(fd)
        fd = newFD
        size = 0
        segmentState.withLock { $0 = next }
        return next
    }

    /// What replay found besides the entries.
    public struct ReplayReport: Sendable, Equatable {
        /// Bytes cut off the end of the last segment: an unacknowledged, torn write.
        public var cutBytes = 0
        /// Segments with damaged entries in them, and how many entries were skipped in each.
        public var damaged: [(path: String, skipped: Int)] = []

        public static func == (lhs: ReplayReport, rhs: ReplayReport) -> Bool {
            lhs.cutBytes == rhs.cutBytes && lhs.damaged.map(\.path) == rhs.damaged.map(\.path)
                && lhs.damaged.map(\.skipped) == rhs.damaged.map(\.skipped)
        }
    }

    /// Decodes every entry of the segments from `first` on with `decode` and hands them to
    /// `apply`, in order.
    ///
    /// A crash can tear only the unacknowledged tail of the last segment: an incomplete last
    /// line, or (when pages of one batch reached the disk out of order) lines whose checksum
    /// fails or that `decode` cannot read. Such a run at the very end is cut off the file. A
    /// bad line anywhere else (with good lines after it, or in an earlier segment) cannot come
    /// from a crash: it is skipped and reported, and everything after it is still replayed.
    /// Lines written before entries carried a checksum are judged by `decode` alone.
    public static func replay<Entry>(
        directory: String, from first: UInt64, decode: (ArraySlice<UInt8>) -> Entry?, apply: (Entry) -> Void
    ) throws(StoreError) -> ReplayReport {
        var report = ReplayReport()
        let present = segments(in: directory).filter { $0 >= first }
        for segment in present {
            let path = path(directory, segment)
            guard let bytes = try FileIO.read(path) else { continue }
            var entries: [Entry?] = []
            var ends: [Int] = []
            var start = 0
            while let newline = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) {
                entries.append(Checksum.verified(bytes[start..<newline]).flatMap(decode))
                start = newline + 1
                ends.append(start)
            }
            // In the last segment, everything after its last good line is the torn tail.
            let lastGood = entries.lastIndex { $0 != nil }
            let isLast = segment == present.last
            var keep = entries.count
            if isLast {
                keep = lastGood.map { $0 + 1 } ?? 0
                let goodEnd = lastGood.map { ends[$0] } ?? 0
                if goodEnd < bytes.count {
                    report.cutBytes += bytes.count - goodEnd
                    guard truncate(path, off_t(goodEnd)) == 0 else { throw .io("truncate", path) }
                }
            } else if start < bytes.count {
                // A fragment at the end of an older segment: damage too (it was rotated whole).
                entries.append(nil)
            }
            let skipped = entries[..<keep].filter { $0 == nil }.count
            if skipped > 0 { report.damaged.append((path, skipped)) }
            for entry in entries[..<keep] {
                if let entry { apply(entry) }
            }
        }
        return report
    }
}
