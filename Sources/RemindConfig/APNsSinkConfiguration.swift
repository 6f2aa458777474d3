import RemindCore

/// An `apns` sink: Apple's HTTP/2 provider API with token authentication (docs/push.md "APNs").
///
/// Only the key's path is configuration; the daemon reads and checks the key itself at start
/// (a missing file or one that is not a P-256 key is exit 78 naming `keyFile`), so the key
/// never appears in the effective configuration.
public struct APNsSinkConfiguration: Sendable, Equatable {
    public static let defaultExpirationSeconds = 86_400
    public static let defaultSettingsURL = "app-settings:"

    /// The `.p8` file from Apple (Certificates, Identifiers & Profiles → Keys).
    public var keyFile: String
    /// The key's 10-character ID, the JWT's `kid`.
    public var keyID: String
    /// The developer team's ID, the JWT's `iss`.
    public var teamID: String
    /// The app's bundle ID, `apns-topic`.
    public var topic: String
    /// How long APNs keeps trying an offline device.
    public var expirationSeconds: Int
    public var settings: PushSinkSettings

    public init(
        keyFile: String, keyID: String, teamID: String, topic: String,
        expirationSeconds: Int = defaultExpirationSeconds,
        settings: PushSinkSettings = PushSinkSettings(settingsURL: defaultSettingsURL)
    ) {
        self.keyFile = keyFile
        self.keyID = keyID
        self.teamID = teamID
        self.topic = topic
        self.expirationSeconds = expirationSeconds
        self.settings = settings
    }

    static let keys = ["keyFile", "keyID", "teamID", "topic", "expirationSeconds"] + PushSinkSettings.keys

    init(reader: inout JSONObjectReader) throws(ValidationError) {
        let keyFile = try reader.required(reader.path("keyFile"), "keyFile")
        var identifiers: [String] = []
        for key in ["keyID", "teamID"] {
            let value = try reader.required(reader.string(key), key)
            guard (1...32).contains(value.utf8.count), value.utf8.allSatisfy(Self.isAlphanumeric) else {
                throw ValidationError(
                    field: reader.fieldPath(key),
                    reason: "must be the ID Apple shows (letters and digits, e.g. ABC123DEFG)")
            }
            identifiers.append(value)
        }
        let topic = try reader.required(reader.string("topic"), "topic")
        guard (1...255).contains(topic.utf8.count), topic.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw ValidationError(
                field: reader.fieldPath("topic"), reason: "must be the app's bundle ID, e.g. com.example.app")
        }
        let expiration = try reader.integer("expirationSeconds", atLeast: 0, atMost: 30 * 86_400)
        self.init(
            keyFile: keyFile, keyID: identifiers[0], teamID: identifiers[1], topic: topic,
            expirationSeconds: expiration.map { Int($0) } ?? Self.defaultExpirationSeconds,
            settings: try PushSinkSettings(reader: &reader, defaultSettingsURL: Self.defaultSettingsURL))
    }

    static func isAlphanumeric(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
    }

    var members: [(key: String, value: JSONValue)] {
        [
            (key: "keyFile", value: .string(keyFile)), (key: "keyID", value: .string(keyID)),
            (key: "teamID", value: .string(teamID)), (key: "topic", value: .string(topic)),
            (key: "expirationSeconds", value: .int(Int64(expirationSeconds))),
        ] + settings.members
    }
}
