import RemindCore

/// An `fcm` sink: Firebase Cloud Messaging's HTTP v1 API (docs/push.md "FCM").
///
/// Only the service-account file's path is configuration; the daemon reads it at start (a
/// missing file, or one without `private_key`, is exit 78 naming `serviceAccountFile`).
public struct FCMSinkConfiguration: Sendable, Equatable {
    /// The service-account key file from the Firebase console (Project settings → Service
    /// accounts → Generate new private key).
    public var serviceAccountFile: String
    public var settings: PushSinkSettings

    public init(serviceAccountFile: String, settings: PushSinkSettings = PushSinkSettings(settingsURL: nil)) {
        self.serviceAccountFile = serviceAccountFile
        self.settings = settings
    }

    static let keys = ["serviceAccountFile"] + PushSinkSettings.keys

    init(reader: inout JSONObjectReader) throws(ValidationError) {
        self.init(
            serviceAccountFile: try reader.required(reader.path("serviceAccountFile"), "serviceAccountFile"),
            settings: try PushSinkSettings(reader: &reader, defaultSettingsURL: nil))
    }

    var members: [(key: String, value: JSONValue)] {
        [(key: "serviceAccountFile", value: .string(serviceAccountFile))] + settings.members
    }
}
