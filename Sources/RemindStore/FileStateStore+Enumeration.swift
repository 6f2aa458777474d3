import RemindCore

extension FileStateStore {
    /// A page of users in byte order of their ID, from the sorted index of the IDs the schedules
    /// hold (`UserIndex`); each record is read as `record(_:)` reads it (from memory, else its
    /// file). A user whose file turns out unreadable is quarantined and skipped, and the page
    /// is filled from the users after them.
    public func users(after: UserID?, limit: Int) async throws -> [UserRecord] {
        var records: [UserRecord] = []
        var cursor = after
        while records.count < limit {
            let wanted = limit - records.count
            let userIDs = userIDs(after: cursor, limit: wanted)
            for userID in userIDs {
                if let record = try await record(userID) { records.append(record) }
            }
            guard userIDs.count == wanted, let last = userIDs.last else { break }
            cursor = last
        }
        return records
    }

    /// Up to `limit` IDs of users after `after`, in byte order: what a page reads, without
    /// reading it (a store made of parts merges its parts' IDs before it reads any record).
    public func userIDs(after: UserID?, limit: Int) -> [UserID] {
        // No copy of the table is taken: held across a suspension, a change meanwhile would
        // copy all of it.
        userIndex.page(
            after: after, limit: limit, all: { schedules.table.userIDs }, isPresent: { schedules.table.contains($0) })
    }
}
