import Foundation
import RemindCore

/// A divided state directory read and written whole: each user's records, events and closed
/// episodes go to the part their ID belongs to; reading goes part after part, so a cursor is
/// `<part>/<the part's cursor>`. The marker is the top directory's.
extension PartitionedStore: StateTransfer where Part == FileStateStore {
    public func exportEvents(after cursor: String?, limit: Int) async throws -> ExportPage<PendingEvent> {
        try await exportPaged(after: cursor) { part, inner in await part.exportEvents(after: inner, limit: limit) }
    }

    public func exportOutcomes(after cursor: String?, limit: Int) async throws -> ExportPage<EpisodeOutcome> {
        try await exportPaged(after: cursor) { part, inner in try await part.exportOutcomes(after: inner, limit: limit)
        }
    }

    /// One part's page; an empty last page of a part goes on to the next part.
    private func exportPaged<Item: Sendable>(
        after cursor: String?, _ page: (FileStateStore, String?) async throws -> ExportPage<Item>
    ) async throws -> ExportPage<Item> {
        var (index, inner) = Self.split(cursor)
        while index < parts.count {
            let result = try await page(parts[index], inner)
            if let next = result.next { return ExportPage(items: result.items, next: "\(index)/\(next)") }
            index += 1
            inner = nil
            if !result.items.isEmpty {
                return ExportPage(items: result.items, next: index < parts.count ? "\(index)/" : nil)
            }
        }
        return ExportPage(items: [], next: nil)
    }

    private static func split(_ cursor: String?) -> (Int, String?) {
        guard let cursor, let slash = cursor.firstIndex(of: "/"), let index = Int(cursor[..<slash]) else {
            return (0, nil)
        }
        let rest = String(cursor[cursor.index(after: slash)...])
        return (index, rest.isEmpty ? nil : rest)
    }

    public func importUsers(_ records: [UserRecord]) async throws {
        let grouped = Dictionary(grouping: records) { PartLayout.index(of: $0.userID, parts: parts.count) }
        for (index, group) in grouped { try await parts[index].importUsers(group) }
    }

    public func importEvents(_ events: [PendingEvent]) async throws {
        // Grouping keeps each part's events in the order given.
        let grouped = Dictionary(grouping: events) { PartLayout.index(of: $0.event.userID, parts: parts.count) }
        for (index, group) in grouped { try await parts[index].importEvents(group) }
    }

    public func importOutcomes(_ outcomes: [EpisodeOutcome]) async throws {
        let grouped = Dictionary(grouping: outcomes) { PartLayout.index(of: $0.userID, parts: parts.count) }
        for (index, group) in grouped { try await parts[index].importOutcomes(group) }
    }

    public func migrationMarker() throws -> String? {
        try MigrationMarkerFile.read(in: topDirectory)
    }

    public func setMigrationMarker(_ marker: String?) throws {
        try MigrationMarkerFile.write(marker, in: topDirectory)
    }
}
