import RemindCore

/// One entry of `sinks`: where events go, with the retry policy and rate limit every sink has.
public struct SinkConfiguration: Sendable, Equatable {
    /// The default sink list: events go to the journal.
    public static let journal = SinkConfiguration(name: "journal", kind: .journal)

    /// Unique among the sinks. It labels metrics, journal fields (`REMINDD_SINK`) and the
    /// outbox's per-sink state, which is why it is restricted to a file-name-safe alphabet.
    public var name: String
    public var kind: SinkKind
    public var retry: RetryPolicy
    public var rateLimit: RateLimit
    /// `always` (every event) or `fallback` (only reminders no push sink can deliver,
    /// docs/fallback.md). A push sink is always `always`.
    public var role: SinkRole

    public var type: SinkType { kind.type }

    /// The push service it serves; nil for a sink that is not a push sink.
    public var pushService: PushService? {
        switch type {
        case .apns: .apns
        case .fcm: .fcm
        default: nil
        }
    }

    public init(
        name: String, kind: SinkKind, retry: RetryPolicy = .default, rateLimit: RateLimit = .unlimited,
        role: SinkRole = .always
    ) {
        self.role = role
        self.name = name
        self.kind = kind
        self.retry = retry
        self.rateLimit = rateLimit
    }

    /// Reads one sink object; `defaultName` stands in when it has no `name`.
    init(object: JSONObject, path: String, defaultName: (SinkType) -> String) throws(ValidationError) {
        var reader = try JSONObjectReader.strict(object, path: path)
        let type = try reader.required(reader.enumeration("type", SinkType.self), "type")
        let name = try reader.string("name")
        if let name, let reason = Self.nameProblem(name) {
            throw ValidationError(field: reader.fieldPath("name"), reason: reason)
        }
        let kind = try SinkKind(type: type, reader: &reader)
        let role = try reader.enumeration("role", SinkRole.self) ?? .always
        if role == .fallback, type == .apns || type == .fcm {
            throw ValidationError(
                field: reader.fieldPath("role"),
                reason: "a push sink cannot be a fallback: the fallback is for users push cannot reach")
        }
        var retry = RetryPolicy.default
        if let object = try reader.strictObject("retry") {
            retry = try RetryPolicy(object: object, path: reader.fieldPath("retry"))
        }
        var rateLimit = RateLimit.unlimited
        if let object = try reader.strictObject("rateLimit") {
            rateLimit = try RateLimit(object: object, path: reader.fieldPath("rateLimit"))
        }
        let known = (["type", "name", "role"] + SinkKind.keys(of: type) + ["retry", "rateLimit"]).joined(
            separator: ", ")
        try reader.rejectUnknownKeys(context: "for a \(type.rawValue) sink (\(known))")
        self.init(name: name ?? defaultName(type), kind: kind, retry: retry, rateLimit: rateLimit, role: role)
    }

    static func nameProblem(_ name: String) -> String? {
        let bytes = Array(name.utf8)
        func allowed(_ byte: UInt8) -> Bool {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"):
                true
            default: false
            }
        }
        guard (1...64).contains(bytes.count), bytes.allSatisfy(allowed), bytes[0] != UInt8(ascii: "."),
            bytes[0] != UInt8(ascii: "-")
        else {
            return "must be 1 to 64 characters from A-Z a-z 0-9 . _ -, not starting with . or -; got \"\(name)\""
        }
        return nil
    }

    /// The sink as the effective configuration shows it: `type`, `name` and `role` first, then the
    /// type's own keys, then `retry` and `rateLimit`, every default written out.
    public var json: JSONValue {
        var members: [(key: String, value: JSONValue)] = [
            (key: "type", value: .string(type.rawValue)), (key: "name", value: .string(name)),
            (key: "role", value: .string(role.rawValue)),
        ]
        members += kind.members
        members += [(key: "retry", value: retry.json), (key: "rateLimit", value: rateLimit.json)]
        return .object(JSONObject(members))
    }
}
