import Foundation
import PostgresNIO
import RemindCore
import RemindStore

extension PostgresStateStore {
    /// A page of users in byte order of their ID (`COLLATE "C"`, whatever the database's
    /// collation, on the index of that order), one statement per page. A document that does not
    /// decode is logged and skipped, as `record(_:)` reads it as unknown, and the page is filled
    /// from the rows after it.
    public func users(after: UserID?, limit: Int) async throws -> [UserRecord] {
        var records: [UserRecord] = []
        var cursor = after?.rawValue ?? ""
        while records.count < limit {
            let wanted = limit - records.count
            let rows = try await database { [cursor] in
                try await self.userRows(after: cursor, limit: wanted)
            }
            for (user, document) in rows {
                do {
                    records.append(try document.decoded().record)
                } catch {
                    logger.error("user \(user): stored document does not decode: \(error)")
                }
            }
            guard rows.count == wanted, let last = rows.last else { break }
            cursor = last.0
        }
        return records
    }

    private func userRows(after cursor: String, limit: Int) async throws -> [(String, StoredDocument)] {
        let rows = try await client.query(
            """
            SELECT u.user_id, \(unescaped: Self.documentColumns) FROM remindd_users AS u \(unescaped: Self.olderHistory)
            WHERE u.user_id COLLATE "C" > \(cursor)
            ORDER BY u.user_id COLLATE "C" LIMIT \(limit)
            """, logger: logger)
        var found: [(String, StoredDocument)] = []
        for try await (user, text, older, positions) in rows.decode((String, String, String?, [Int64]).self) {
            found.append((user, StoredDocument((text, older, positions))))
        }
        return found
    }
}
