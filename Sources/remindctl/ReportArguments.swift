import ArgumentParser
import RemindCore

// The report flags take RemindCore's own enums, so `--location` offers exactly the values the
// daemon accepts and a bad one is refused with the flag's name before anything is sent.
extension LocationAuthorization: ExpressibleByArgument {}
extension LocationAccuracy: ExpressibleByArgument {}

/// `--notifications`: the values a report may carry (`unknown` only means "never reported").
enum ReportedNotifications: String, CaseIterable, ExpressibleByArgument {
    case notDetermined, denied, provisional, authorized

    var authorization: NotificationAuthorization {
        NotificationAuthorization(rawValue: rawValue) ?? .unknown
    }
}

/// `--services on|off`: system-wide Location Services.
enum OnOff: String, CaseIterable, ExpressibleByArgument {
    case on, off
}

/// `--motion`: the values a report may carry (`unknown` only means "never reported").
enum ReportedMotion: String, CaseIterable, ExpressibleByArgument {
    case notDetermined, restricted, denied, authorized

    var authorization: MotionAuthorization {
        MotionAuthorization(rawValue: rawValue) ?? .unknown
    }
}
