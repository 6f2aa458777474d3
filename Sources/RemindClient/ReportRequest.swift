import Foundation
import RemindCore

/// A permission report to send (`POST /v1/users/{userID}/reports`). Members left nil are not
/// sent, so the daemon applies its own defaults ("last known value" for notifications and
/// time zone).
public struct ReportRequest: Sendable, Equatable {
    public var location: LocationAuthorization
    public var accuracy: LocationAccuracy?
    public var locationServices: Bool?
    /// `unknown` is not reportable; the daemon refuses it.
    public var notifications: NotificationAuthorization?
    /// Sent as written, so the daemon checks it (and its offset) itself.
    public var observedAt: String?
    public var timeZone: String?
    /// `unknown` is not reportable; the daemon refuses it.
    public var motion: MotionAuthorization?
    public var locale: String?

    public init(
        location: LocationAuthorization, accuracy: LocationAccuracy? = nil, locationServices: Bool? = nil,
        notifications: NotificationAuthorization? = nil, observedAt: String? = nil, timeZone: String? = nil,
        motion: MotionAuthorization? = nil, locale: String? = nil
    ) {
        self.motion = motion
        self.locale = locale
        self.location = location
        self.accuracy = accuracy
        self.locationServices = locationServices
        self.notifications = notifications
        self.observedAt = observedAt
        self.timeZone = timeZone
    }

    public var jsonBytes: [UInt8] {
        var writer = JSONWriter()
        writer.beginObject()
        writer.member("location", location.rawValue)
        if let accuracy { writer.member("accuracy", accuracy.rawValue) }
        if let locationServices { writer.member("locationServices", locationServices) }
        if let notifications { writer.member("notifications", notifications.rawValue) }
        if let observedAt { writer.member("observedAt", observedAt) }
        if let timeZone { writer.member("timeZone", timeZone) }
        if let motion { writer.member("motion", motion.rawValue) }
        if let locale { writer.member("locale", locale) }
        writer.endObject()
        return writer.bytes
    }
}
