import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Writes log entries to journald from a thread of its own, so that no log call waits for journald.
///
/// `sd_journal_sendv` blocks while journald is not reading (stopped, rate-limiting, a slow disk, a flood): called on
/// the caller's thread, every log call would then stall the cooperative pool and with it every request. Here a log
/// call only appends to a ``BoundedLogQueue``; the writer thread sends, and it is the only thread that waits. While
/// it waits the queue fills and further entries are dropped and counted; once journald takes entries again the
/// writer logs one "N log messages dropped" entry (``MessageID/logMessagesDropped``).
///
/// An entry journald refuses outright (it is gone, the entry is malformed) is written to standard error instead.
///
/// Its thread lives as long as the process: one writer serves every handler (``shared``).
public final class JournalWriter: @unchecked Sendable {
    /// One entry: its journald fields, and the line standard error gets if journald refuses it.
    public struct Entry: Sendable {
        public var fields: [(name: String, value: String)]
        public var summary: String

        public init(fields: [(name: String, value: String)], summary: String) {
            self.fields = fields
            self.summary = summary
        }
    }

    /// The writer of the process's journald handlers: one thread and one queue however many loggers there are.
    public static let shared = JournalWriter(
        identifier: CommandLine.arguments.first.map(JournalWriter.programName) ?? "remindd")

    /// `SYSLOG_IDENTIFIER` of the writer's own "dropped" entry.
    public let identifier: String
    private let send: @Sendable ([(name: String, value: String)]) -> Int32
    private let writeStandardError: @Sendable (String) -> Void
    // `condition` guards `queue` and `busy`: NSCondition, because the writer thread sleeps until there is work.
    private let condition = NSCondition()
    private var queue: BoundedLogQueue<Entry>
    private var busy = false

    /// - Parameters:
    ///   - capacity: entries held while journald is not reading; more are dropped and counted.
    ///   - send: sends one entry and returns 0 or a negative errno; it may block (only this writer's thread waits).
    public init(
        identifier: String,
        capacity: Int = 1024,
        send: @escaping @Sendable ([(name: String, value: String)]) -> Int32 = JournalLogHandler.send,
        writeStandardError: @escaping @Sendable (String) -> Void = JournalWriter.writeToStandardError
    ) {
        self.identifier = identifier
        self.send = send
        self.writeStandardError = writeStandardError
        self.queue = BoundedLogQueue(capacity: capacity)
        let thread = Thread { [self] in self.run() }
        thread.name = "journal-writer"
        thread.start()
    }

    /// Queues an entry; never waits. Returns false when the queue was full and the entry was dropped.
    @discardableResult
    public func enqueue(_ entry: Entry) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        let queued = queue.append(entry)
        condition.signal()
        return queued
    }

    /// Waits until every queued entry was handed to journald, or until `deadline`; true when all were.
    ///
    /// For the end of the program, so that its last entries ("stopping") are not lost with the process.
    @discardableResult
    public func flush(until deadline: ContinuousClock.Instant) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while !queue.isEmpty || busy {
            let left = deadline - ContinuousClock.now
            guard left > .zero else { return false }
            let seconds = Double(left.components.seconds) + Double(left.components.attoseconds) / 1e18
            _ = condition.wait(until: Date(timeIntervalSinceNow: seconds))
        }
        return true
    }

    private func run() {
        while true {
            condition.lock()
            while queue.isEmpty { condition.wait() }
            let (entries, dropped) = queue.takeAll()
            busy = true
            condition.unlock()

            for entry in entries { write(entry) }
            // After the sends above returned, journald reads again: say what it missed meanwhile.
            if dropped > 0 { write(droppedEntry(count: dropped)) }

            condition.lock()
            busy = false
            condition.broadcast()
            condition.unlock()
        }
    }

    private func write(_ entry: Entry) {
        let result = send(entry.fields)
        if result < 0 {
            let reason = String(cString: strerror(-result))
            writeStandardError("\(entry.summary) (journald refused the entry: \(reason))\n")
        }
    }

    func droppedEntry(count: Int) -> Entry {
        let message = "\(count) log messages dropped while journald was not reading"
        return Entry(
            fields: [
                ("MESSAGE", message), ("PRIORITY", "4"), ("SYSLOG_IDENTIFIER", identifier),
                (MessageID.metadataKey, MessageID.logMessagesDropped.rawValue),
                ("REMINDD_DROPPED_MESSAGES", String(count)),
            ],
            summary: "warning \(identifier): \(message)")
    }

    public static func writeToStandardError(_ line: String) {
        var bytes = Array(line.utf8)
        _ = bytes.withUnsafeMutableBytes { Glibc.write(STDERR_FILENO, $0.baseAddress, $0.count) }
    }

    private static func programName(_ path: String) -> String {
        path.split(separator: "/").last.map(String.init) ?? path
    }
}
