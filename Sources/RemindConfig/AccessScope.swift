/// What a caller may do through the API. Each scope includes the ones before it.
///
/// - `read`: every `GET`.
/// - `report`: also the report routes (`POST /v1/users/{id}/reports`), for app backends.
/// - `admin`: everything: deleting users, replaying dead letters, reloading.
public enum AccessScope: String, Sendable, Comparable, CaseIterable {
    case read
    case report
    case admin

    public static func < (lhs: AccessScope, rhs: AccessScope) -> Bool {
        lhs.rank < rhs.rank
    }

    private var rank: Int {
        switch self {
        case .read: 0
        case .report: 1
        case .admin: 2
        }
    }
}
