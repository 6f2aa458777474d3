import Foundation

/// What the user did with a reminder or an ask, as the app reports it (docs/in-app.md): in
/// `POST /v1/users/{userID}/events` or in a report's `events`.
///
/// Each names its reminder or ask by ID and counts at most once per (type, ID): a second report
/// of the same event changes nothing, so the app may send again whatever it is unsure arrived.
public struct EngagementEvent: Sendable, Equatable {
    public enum Kind: String, Sendable, CaseIterable {
        /// The user opened a reminder notification; `id` is the reminder's event ID.
        case reminderOpened
        /// The app showed an ask's screen; `id` is the ask's ID.
        case askShown
        /// The user tapped the ask's button.
        case askAccepted
        /// The user closed the ask's screen without tapping the button.
        case askDismissed
    }

    /// The most events one request (or report) carries.
    public static let maximumCount = 100

    public var kind: Kind
    public var id: String
    /// When it happened (the request's receive time when the app did not say).
    public var at: Date

    public init(kind: Kind, id: String, at: Date) {
        self.kind = kind
        self.id = id
        self.at = at.millisecondPrecision
    }

    /// Reads an `events` array received at `receivedAt`. Refused whole (422) for more than
    /// `maximumCount` events, an unknown `type`, a missing `id` or an `at` more than five
    /// minutes ahead of `receivedAt`, each naming `field[i].member`.
    public static func list(_ values: [JSONValue], field: String, receivedAt: Date) throws(ValidationError) -> [Self] {
        guard values.count <= maximumCount else {
            throw ValidationError(
                field: field, reason: "has \(values.count) events; at most \(maximumCount) are taken at once",
                status: 422)
        }
        var events: [Self] = []
        events.reserveCapacity(values.count)
        for (index, value) in values.enumerated() {
            let path = "\(field)[\(index)]"
            guard case .object(let object) = value else {
                throw ValidationError(field: path, reason: "must be an object, got \(value.typeName)", status: 422)
            }
            var reader = JSONObjectReader(object, path: path)
            let kind: Kind?
            let id: String?
            let at: String?
            do {
                kind = try reader.enumeration("type", Kind.self)
                id = try reader.string("id")
                at = try reader.string("at")
            } catch {
                throw ValidationError(field: error.field, reason: error.reason, status: 422)
            }
            guard let kind else {
                throw ValidationError(
                    field: "\(path).type",
                    reason: "is required (\(Kind.allCases.map(\.rawValue).joined(separator: ", ")))",
                    status: 422)
            }
            guard let id, !id.isEmpty else {
                throw ValidationError(
                    field: "\(path).id", reason: "is required: the reminder's or the ask's ID", status: 422)
            }
            var date = receivedAt
            if let at {
                guard let parsed = RFC3339.parse(at) else {
                    throw ValidationError(field: "\(path).at", reason: "must be an RFC 3339 timestamp", status: 422)
                }
                guard parsed.timeIntervalSince(receivedAt) <= PermissionReport.futureTolerance else {
                    throw ValidationError(
                        field: "\(path).at",
                        reason:
                            "is more than \(Int(PermissionReport.futureTolerance)) seconds in the future (\(at)); check the device clock",
                        status: 422)
                }
                date = parsed
            }
            events.append(Self(kind: kind, id: id, at: date))
        }
        return events
    }
}
