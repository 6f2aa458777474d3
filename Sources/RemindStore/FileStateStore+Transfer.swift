import Foundation
import RemindCore

/// A state directory read and written whole, for `remindd migrate`. Users and events go
/// through the write-ahead log like any change (a `put` line per user, with the revision it
/// came with; events in `fired` lines without changes), so an import is durable when it
/// returns; closed episodes are appended to the outcomes log directly.
extension FileStateStore: StateTransfer {
    /// The cursor is the creation sequence of the next event.
    public func exportEvents(after cursor: String?, limit: Int) -> ExportPage<PendingEvent> {
        let start = cursor.flatMap { UInt64($0) } ?? 0
        let following = outbox.entries.values.filter { $0.sequence >= start }.sorted { $0.sequence < $1.sequence }
        let page = following.prefix(limit)
        let events = page.flatMap(\.groups).map { PendingEvent(event: $0.event, sinks: $0.sinks) }
        let next = following.count > limit ? page.last.map { String($0.sequence + 1) } : nil
        return ExportPage(items: events, next: next)
    }

    /// The outcomes log's files in month order, then the closed episodes not yet appended to
    /// them. The cursor is `<file>:<byte offset>`, or `pending:<index>` for the latter.
    public func exportOutcomes(after cursor: String?, limit: Int) async throws -> ExportPage<EpisodeOutcome> {
        try await loadOutcomes()
        let log = outcomeLog
        let names = log.fileNames
        var position = OutcomeCursor(cursor, firstFile: names.first)
        var outcomes: [EpisodeOutcome] = []
        while outcomes.count < limit {
            switch position {
            case .file(let name, let offset):
                let wanted = limit - outcomes.count
                let (read, next) = try await io.runBlocking { () throws(StoreError) in
                    try log.read(name, from: offset, limit: wanted)
                }
                outcomes += read
                if let next {
                    position = .file(name, offset: next)
                } else if let index = names.firstIndex(of: name), index + 1 < names.count {
                    position = .file(names[index + 1], offset: 0)
                } else {
                    position = .pending(0)
                }
            case .pending(let index):
                let end = min(pendingOutcomes.count, index + limit - outcomes.count)
                if index < end { outcomes += pendingOutcomes[index..<end] }
                return ExportPage(items: outcomes, next: end < pendingOutcomes.count ? "pending:\(end)" : nil)
            }
        }
        return ExportPage(items: outcomes, next: position.text)
    }

    public func importUsers(_ records: [UserRecord]) async throws {
        guard !records.isEmpty else { return }
        let encoded = records.map { ($0, $0.jsonBytes) }
        try await logged(encoded.map { LogEntry.recordLine("put", json: $0.1, events: []) }) {
            for (record, json) in encoded { install(record, encoded: json) }
        }
    }

    public func importEvents(_ events: [PendingEvent]) async throws {
        guard !events.isEmpty else { return }
        let pairs = events.map { (event: $0.event, sinks: $0.sinks) }
        try await logged(LogEntry.lines(pairs) { .fired([], events: $0) }) {
            for pending in events {
                // `requeue` adds the sinks an event already pending lacks, and only those.
                for sink in pending.sinks { outbox.requeue(pending.event, sink: sink) }
            }
            for signal in outboxSignals.values { signal.signal() }
        }
    }

    /// Appended to the outcomes log and made durable at once, not at the next checkpoint. The
    /// episodes the log holds are read once, at the first import, to leave them out.
    public func importOutcomes(_ outcomes: [EpisodeOutcome]) async throws {
        guard !outcomes.isEmpty else { return }
        // Read first: the log's torn last line is cut off before anything is appended to it.
        try await loadOutcomes()
        let log = outcomeLog
        if importedOutcomes == nil {
            let held = try await io.runBlocking { () throws(StoreError) in try log.all() }
            importedOutcomes = Set(held + pendingOutcomes)
        }
        let new = outcomes.filter { importedOutcomes?.insert($0).inserted ?? true }
        guard !new.isEmpty else { return }
        try await io.runBlocking { () throws(StoreError) in try log.append(new) }
        for outcome in new { outcomeStatistics.add(outcome) }
    }

    public func migrationMarker() throws -> String? {
        try MigrationMarkerFile.read(in: directory)
    }

    public func setMigrationMarker(_ marker: String?) throws {
        try MigrationMarkerFile.write(marker, in: directory)
    }
}

/// Where `exportOutcomes` goes on.
private enum OutcomeCursor {
    case file(String, offset: Int)
    case pending(Int)

    init(_ text: String?, firstFile: String?) {
        guard let text else {
            self = firstFile.map { .file($0, offset: 0) } ?? .pending(0)
            return
        }
        let parts = text.split(separator: ":", maxSplits: 1).map(String.init)
        if parts.count == 2, parts[0] == "pending" {
            self = .pending(Int(parts[1]) ?? 0)
        } else if let colon = text.lastIndex(of: ":"), let offset = Int(text[text.index(after: colon)...]) {
            self = .file(String(text[..<colon]), offset: offset)
        } else {
            self = .pending(0)
        }
    }

    var text: String {
        switch self {
        case .file(let name, let offset): "\(name):\(offset)"
        case .pending(let index): "pending:\(index)"
        }
    }
}
