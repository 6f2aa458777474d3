import Foundation

/// An event waiting for (or handed to) a sink: its id and user for logs and de-duplication,
/// and its JSON bytes, which are what every sink sends.
public struct OutboxEvent: Sendable, Equatable {
    public var id: String
    public var userID: UserID
    public var kind: SinkEvent.Kind
    public var bytes: [UInt8]
    /// The kinds of sink it goes to, which the store turns into sink names when it enqueues
    /// it. Not kept: a stored event keeps the names (read back, this is `always`).
    public var audience: SinkAudience

    public init(
        id: String, userID: UserID, kind: SinkEvent.Kind, bytes: [UInt8], audience: SinkAudience = .always
    ) {
        self.audience = audience
        self.id = id
        self.userID = userID
        self.kind = kind
        self.bytes = bytes
    }

    public init(_ event: SinkEvent) {
        self.init(
            id: event.id, userID: event.userID, kind: event.kind, bytes: event.jsonBytes, audience: event.audience)
    }

    /// Reads the fields back out of stored JSON bytes (the outbox keeps only the bytes).
    public init(bytes: some Collection<UInt8>) throws(ValidationError) {
        guard case .object(let object)? = try? JSONParser.parse(bytes) else {
            throw ValidationError(field: "event", reason: "is not a JSON object")
        }
        var reader = JSONObjectReader(object, path: "event")
        guard let id = try reader.string("id"), let user = try reader.string("userID"),
            let kind = try reader.enumeration("type", SinkEvent.Kind.self)
        else { throw ValidationError(field: "event", reason: "needs id, userID and type") }
        self.init(id: id, userID: try UserID(user), kind: kind, bytes: Array(bytes))
    }

    public var json: String { String(decoding: bytes, as: UTF8.self) }
}
