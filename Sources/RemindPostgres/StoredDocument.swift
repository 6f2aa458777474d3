import RemindCore

/// A user's record as the database keeps it: the document in `remindd_users` (the record with
/// its newest history entry alone) and the older entries in `remindd_history`, read together
/// by `PostgresStateStore.documentColumns`.
struct StoredDocument: Sendable {
    /// The columns as `SELECT`ed: the document, the older entries (newest first, JSON values
    /// joined by commas; nil for none) and their rows' positions in that order.
    typealias Columns = (String, String?, [Int64])

    var document: String
    var olderEntries: String?
    var positions: [Int64]

    init(_ columns: Columns) {
        (document, olderEntries, positions) = columns
    }

    /// The whole record, and the rows its older entries came from. An error names the field;
    /// `olderHistory[i]` is the i-th entry after the document's own.
    func decoded() throws(ValidationError) -> (record: UserRecord, older: OlderHistory) {
        var record = try UserRecord(json: Array(document.utf8))
        guard let olderEntries else { return (record, .empty) }
        var bytes: [UInt8] = [UInt8(ascii: "[")]
        bytes.reserveCapacity(olderEntries.utf8.count + 2)
        bytes += olderEntries.utf8
        bytes.append(UInt8(ascii: "]"))
        let parsed: JSONValue
        do {
            parsed = try JSONParser.parse(bytes)
        } catch {
            throw ValidationError(field: "olderHistory", reason: "not valid JSON (\(error))")
        }
        guard case .array(let elements) = parsed else {
            throw ValidationError(field: "olderHistory", reason: "must be a list of entries")
        }
        let older = try UserRecord.readHistory(elements, path: "olderHistory")
        guard older.count == positions.count else {
            throw ValidationError(
                field: "olderHistory", reason: "has \(older.count) entries in \(positions.count) rows")
        }
        record.history += older
        return (record, OlderHistory(entries: older, positions: positions))
    }
}
