import Foundation
import RemindCore

/// Test fixtures: instants written as RFC 3339 text, and reports with the defaults of absent fields.
public enum Fixtures {
    /// The instant named by an RFC 3339 timestamp; traps on a typo, which is a test bug.
    public static func date(_ text: String) -> Date {
        guard let date = RFC3339.parse(text) else { preconditionFailure("bad fixture timestamp \(text)") }
        return date
    }

    public static func userID(_ text: String = "u-42") -> UserID {
        do { return try UserID(text) } catch { preconditionFailure("bad fixture user ID \(text)") }
    }

    public static func report(
        _ location: LocationAuthorization,
        at observedAt: String,
        accuracy: LocationAccuracy = .full,
        services: Bool = true,
        notifications: NotificationAuthorization? = nil,
        timeZone: String? = nil,
        motion: MotionAuthorization? = nil,
        locale: String? = nil
    ) -> PermissionReport {
        PermissionReport(
            location: location, accuracy: accuracy, locationServices: services, notifications: notifications,
            observedAt: date(observedAt), timeZone: timeZone, locale: locale, motion: motion)
    }
}

extension Date {
    /// Shorthand for fixtures: `Fixtures.date("…") + .days(7)`.
    public static func + (lhs: Date, rhs: Duration) -> Date {
        let (seconds, attoseconds) = rhs.components
        return lhs.addingTimeInterval(TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18)
    }

    public static func - (lhs: Date, rhs: Duration) -> Date {
        lhs + (.zero - rhs)
    }
}

extension Duration {
    public static func days(_ days: Int) -> Duration { .seconds(days * 86_400) }
    public static func hours(_ hours: Int) -> Duration { .seconds(hours * 3_600) }
    public static func minutes(_ minutes: Int) -> Duration { .seconds(minutes * 60) }
}
