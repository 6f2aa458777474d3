import RemindCore

/// Every user's ID in byte order, for enumerating users a page at a time (`users(after:limit:)`)
/// without sorting every ID for every page.
///
/// Built at the first page from the IDs the schedules hold, then kept current as users come:
/// a new ID waits in `added` until there are enough of them to be worth sorting in. A deleted
/// ID stays in `sorted` until then, and a page skips it (the caller says who is present). It
/// is dropped when a page reaches the end, so it costs memory only while an enumeration runs.
struct UserIndex {
    private var sorted: [UserID]?
    private var added: Set<UserID> = []

    /// IDs added since the sort, beyond which the next page sorts them in.
    private static let mergeThreshold = 4096

    /// A user the schedules did not hold before.
    mutating func noteAdded(_ userID: UserID) {
        guard let sorted, !Self.contains(sorted, userID) else { return }
        added.insert(userID)
    }

    /// Up to `limit` present IDs after `after`, in byte order; fewer only at the end, where the
    /// index is dropped.
    mutating func page<IDs: Collection<UserID>>(
        after: UserID?, limit: Int, all: () -> IDs, isPresent: (UserID) -> Bool
    ) -> [UserID] {
        if sorted == nil || added.count > Self.mergeThreshold {
            sorted = all().sorted()
            added = []
        }
        let sorted = sorted ?? []
        let extra = added.filter { userID in after.map { userID > $0 } ?? true }.sorted()
        var index = after.map { Self.firstIndex(after: $0, in: sorted) } ?? 0
        var extraIndex = 0
        var page: [UserID] = []
        while page.count < limit {
            let next: UserID
            if index < sorted.count, extraIndex >= extra.count || sorted[index] < extra[extraIndex] {
                next = sorted[index]
                index += 1
            } else if extraIndex < extra.count {
                next = extra[extraIndex]
                extraIndex += 1
            } else {
                break
            }
            if isPresent(next) { page.append(next) }
        }
        if page.count < limit {
            self.sorted = nil
            added = []
        }
        return page
    }

    private static func contains(_ sorted: [UserID], _ userID: UserID) -> Bool {
        let index = firstIndex(notBelow: userID, in: sorted)
        return index < sorted.count && sorted[index] == userID
    }

    private static func firstIndex(after userID: UserID, in sorted: [UserID]) -> Int {
        let index = firstIndex(notBelow: userID, in: sorted)
        return index < sorted.count && sorted[index] == userID ? index + 1 : index
    }

    /// The first position whose ID is not below `userID` (a binary search).
    private static func firstIndex(notBelow userID: UserID, in sorted: [UserID]) -> Int {
        var low = 0
        var high = sorted.count
        while low < high {
            let middle = (low + high) / 2
            if sorted[middle] < userID { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
