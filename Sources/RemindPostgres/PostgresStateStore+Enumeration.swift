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
            for (user, text) in rows {
                do {
                    records.append(try UserRecord(json: Array(text.utf8)))
                } catch {
                    logger.error("user \(user): stored document does not decode: \(error)")
                }
            }
            guard rows.count == wanted, let last = rows.last else { break }
            cursor = last.0
        }
        return records
    }

    private func userRows(after cursor: String, limit: Int) async throws -> [(String, String)] {
        let rows = try await client.query(
            """
            SELECT user_id, doc FROM remindd_users WHERE user_id COLLATE "C" > \(cursor)
            ORDER BY user_id COLLATE "C" LIMIT \(limit)
            """, logger: logger)
        var found: [(String, String)] = []
        for try await row in rows.decode((String, String).self) { found.append(row) }
        return found
    }
}
