import RemindCore

/// The `remindd_history` rows of one statement, as the arrays it binds.
struct HistoryRows {
    var deletedUsers: [String] = []
    var deletedPositions: [Int64] = []
    var insertedUsers: [String] = []
    var positions: [Int64] = []
    var entries: [String] = []

    mutating func add(_ change: OlderHistory.Change, of userID: UserID) {
        for position in change.deleted {
            deletedUsers.append(userID.rawValue)
            deletedPositions.append(position)
        }
        for (position, entry) in change.inserted {
            var writer = JSONWriter()
            entry.write(to: &writer)
            insertedUsers.append(userID.rawValue)
            positions.append(position)
            entries.append(String(decoding: writer.bytes, as: UTF8.self))
        }
    }
}
