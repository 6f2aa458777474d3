import Foundation
import RemindCore

#if canImport(Glibc)
    import Glibc
#endif

/// The outcomes log (docs/outcomes.md): `<stateDirectory>/outcomes/outcomes-YYYY-MM.jsonl`, one JSON
/// line per closed episode, by the month (UTC) it closed in — the export a data team loads.
///
/// A closed episode is first durable in the write-ahead log, in the same line as the report
/// (or delete) that closed it; checkpoints append it here and `fsync` before the log segment
/// that holds it may go. A crash between the two appends it again at replay: `load` keeps the
/// last lines of each file so that `Recovery`'s replayed outcomes already here are skipped
/// (an episode closes once, so its user, start and close name it). A line torn by a crash
/// mid-append is cut off; the log still holds it.
struct OutcomeLog: Sendable {
    static let directoryName = "outcomes"

    let directory: String

    init(stateDirectory: String) throws(StoreError) {
        directory = stateDirectory + "/" + Self.directoryName
        try FileIO.makeDirectories(directory)
    }

    /// Appends `outcomes` in order, one write and one `fsync` per file touched.
    func append(_ outcomes: [EpisodeOutcome]) throws(StoreError) {
        var byFile: [String: [UInt8]] = [:]
        var order: [String] = []
        for outcome in outcomes {
            let name = outcome.fileName
            if byFile[name] == nil { order.append(name) }
            byFile[name, default: []] += outcome.jsonBytes + [UInt8(ascii: "\n")]
        }
        for (name, bytes) in order.map({ ($0, byFile[$0, default: []]) }) {
            let path = directory + "/" + name
            let created = !FileIO.exists(path)
            let fd = try FileIO.open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC)
            defer { close(fd) }
            try FileIO.writeAll(fd, bytes, path: path)
            guard fsync(fd) == 0 else { throw .io("fsync", path) }
            if created { try FileIO.fsyncDirectory(directory) }
        }
    }

    /// Adds every outcome in the files to `statistics`, oldest month first, and returns the last
    /// `tail[file]` outcomes of each file named in `tail`. A torn last line is cut off the file;
    /// any other line that does not decode is reported and skipped.
    func load(
        into statistics: inout OutcomeStatistics, tail: [String: Int], notice: (StoreNotice) -> Void
    ) throws(StoreError) -> [String: [EpisodeOutcome]] {
        var tails: [String: [EpisodeOutcome]] = [:]
        let names = FileIO.list(directory).filter { $0.hasPrefix("outcomes-") && $0.hasSuffix(".jsonl") }.sorted()
        for name in names {
            let path = directory + "/" + name
            guard let bytes = try FileIO.read(path) else { continue }
            var end = bytes.endIndex
            if let last = bytes.last, last != UInt8(ascii: "\n") {
                // Torn by a crash mid-append: the write-ahead log still has it.
                end = (bytes.lastIndex(of: UInt8(ascii: "\n")).map { $0 + 1 }) ?? bytes.startIndex
                guard truncate(path, off_t(end)) == 0 else { throw .io("truncate", path) }
            }
            let keep = tail[name] ?? 0
            let lines = bytes[..<end].split(separator: UInt8(ascii: "\n"))
            var damaged = 0
            for line in lines {
                // The fast reader for lines as remindd writes them; the JSON parser for the rest.
                if let fast = OutcomeLine(line) {
                    statistics.add(fast)
                } else if let outcome = try? EpisodeOutcome(json: line) {
                    statistics.add(outcome)
                } else {
                    damaged += 1
                }
            }
            // The last lines in full, for replay to tell what it need not append again.
            let kept = keep > 0 ? lines.suffix(keep).compactMap { try? EpisodeOutcome(json: $0) } : []
            if damaged > 0 {
                notice(
                    .damagedFile(
                        path: path, movedTo: path, reason: "\(damaged) line(s) that are not outcomes",
                        consequence: "skipped them and counted every other line; the file stays in place"))
            }
            if keep > 0 { tails[name] = kept }
        }
        return tails
    }

    /// The log's files, oldest month first.
    var fileNames: [String] {
        FileIO.list(directory).filter { $0.hasPrefix("outcomes-") && $0.hasSuffix(".jsonl") }.sorted()
    }

    /// Up to `limit` outcomes of one file from byte `offset`, and the offset after the last line
    /// read (nil at the end of the file). Lines that do not decode, and a torn last line, are
    /// passed over, as `load` passes over them.
    func read(
        _ name: String, from offset: Int, limit: Int
    ) throws(StoreError) -> (outcomes: [EpisodeOutcome], next: Int?) {
        let path = directory + "/" + name
        var outcomes: [EpisodeOutcome] = []
        var offset = offset
        // Outcome lines are a few hundred bytes: a chunk holds a page of them.
        let chunk = limit > 4096 ? 4 << 20 : max(64 * 1024, limit * 1024)
        while outcomes.count < limit {
            guard let bytes = try FileIO.read(path, from: offset, count: chunk), !bytes.isEmpty,
                let lastNewline = bytes.lastIndex(of: UInt8(ascii: "\n"))
            else { return (outcomes, nil) }
            var start = bytes.startIndex
            while start <= lastNewline, outcomes.count < limit {
                let end = bytes[start...].firstIndex(of: UInt8(ascii: "\n"))!
                if end > start, let outcome = try? EpisodeOutcome(json: bytes[start..<end]) { outcomes.append(outcome) }
                start = end + 1
            }
            offset += start
            if bytes.count < chunk && start > lastNewline { return (outcomes, nil) }
        }
        return (outcomes, offset)
    }

    /// Every outcome the files hold.
    func all() throws(StoreError) -> [EpisodeOutcome] {
        var outcomes: [EpisodeOutcome] = []
        for name in fileNames { outcomes += try read(name, from: 0, limit: .max).outcomes }
        return outcomes
    }
}
