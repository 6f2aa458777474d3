import Foundation
import RemindCore
import RemindTesting

/// The seeds of a property: `count` fixed seeds derived from `base`, so every run checks the
/// same cases and a failure names the one seed that reproduces it.
func propertySeeds(_ base: UInt64, count: Int) -> [UInt64] {
    (0..<count).map { base &+ UInt64($0) &* 0x1_0000_0001 }
}

extension Date {
    /// The instant `milliseconds` after the Unix epoch, exactly as remindd stores instants.
    init(unixMilliseconds milliseconds: Int64) {
        self.init(timeIntervalSince1970: Double(milliseconds) / 1000)
    }

    var unixMilliseconds: Int64 { Int64((timeIntervalSince1970 * 1000).rounded()) }
}

/// One report and the moment the daemon received it.
struct ScheduledReport: CustomStringConvertible {
    var report: PermissionReport
    var receivedAt: Date

    var description: String {
        "\(ReportGenerator.describe(report)) recv \(RFC3339.format(receivedAt))"
    }
}

/// Random permission reports for one user, with the documented shapes.
enum ReportGenerator {
    /// Generated instants start here (2026-11-13T04:00:00Z) so they look like real ones.
    static let epochMilliseconds: Int64 = 1_794_542_400_000
    static let timeZones = ["Europe/Berlin", "America/New_York", "Asia/Tokyo", "Australia/Adelaide", "UTC"]

    /// Mostly `always` and `whileInUse`, the two states users actually flip between.
    static func location(using rng: inout SplitMix64) -> LocationAuthorization {
        rng.weighted([
            (.always, 40), (.whileInUse, 25), (.allowOnce, 10), (.denied, 10), (.notDetermined, 8),
            (.restricted, 7),
        ])
    }

    /// Reports with distinct, increasing `observedAt` (millisecond precision, from a few
    /// milliseconds to days apart). With `repeatProbability` a report repeats the previous
    /// one's fields, as devices re-reporting an unchanged state do; with `revertProbability`
    /// it repeats the one before that, as users flipping a setting back do.
    static func reports(
        count: Int, using rng: inout SplitMix64, repeatProbability: Double = 0.3, revertProbability: Double = 0.15,
        absentNotificationsProbability: Double = 0.3, absentTimeZoneProbability: Double = 0.7
    ) -> [PermissionReport] {
        var milliseconds = epochMilliseconds + rng.int64(0...86_400_000)
        var reports: [PermissionReport] = []
        for index in 0..<count {
            if index > 0 {
                milliseconds += rng.weighted([
                    (rng.int64(1...999), 1), (rng.int64(1_000...3_600_000), 4), (rng.int64(3_600_000...259_200_000), 5),
                ])
            }
            let observedAt = Date(unixMilliseconds: milliseconds)
            if let previous = reports.last, rng.chance(repeatProbability) {
                var copy = previous
                copy.observedAt = observedAt
                reports.append(copy)
                continue
            }
            if reports.count >= 2, rng.chance(revertProbability) {
                var copy = reports[reports.count - 2]
                copy.observedAt = observedAt
                reports.append(copy)
                continue
            }
            let notifications: NotificationAuthorization? =
                rng.chance(absentNotificationsProbability)
                ? nil : rng.weighted([(.authorized, 5), (.provisional, 1), (.denied, 3), (.notDetermined, 1)])
            reports.append(
                PermissionReport(
                    location: location(using: &rng),
                    accuracy: rng.chance(0.8) ? .full : .reduced,
                    locationServices: rng.chance(0.9),
                    notifications: notifications,
                    observedAt: observedAt,
                    timeZone: rng.chance(absentTimeZoneProbability) ? nil : rng.element(timeZones)))
        }
        return reports
    }

    /// When each report reaches the daemon, in receive order. Most arrive within a minute of
    /// their observation (or up to 300 s "early" from a fast device clock); with
    /// `lateProbability` one arrives hours or days late, after newer ones.
    static func receiveSchedule(
        _ reports: [PermissionReport], using rng: inout SplitMix64, lateProbability: Double = 0.2
    ) -> [ScheduledReport] {
        let scheduled = reports.enumerated().map { index, report in
            let lag =
                rng.chance(lateProbability)
                ? rng.int64(3_600_000...432_000_000) : rng.int64(-300_000...60_000)
            return (index, ScheduledReport(report: report, receivedAt: report.observedAt.adding(milliseconds: lag)))
        }
        return scheduled.sorted { ($0.1.receivedAt, $0.0) < ($1.1.receivedAt, $1.0) }.map(\.1)
    }

    static func describe(_ report: PermissionReport) -> String {
        let services = report.locationServices ? "" : " servicesOff"
        let accuracy = report.accuracy == .full ? "" : " reduced"
        let notifications = report.notifications.map { " notif=\($0.rawValue)" } ?? ""
        let zone = report.timeZone.map { " tz=\($0)" } ?? ""
        return
            "\(report.location.rawValue)\(services)\(accuracy)\(notifications)\(zone)"
            + " @\(RFC3339.format(report.observedAt))"
    }

    static func describe(_ reports: [PermissionReport]) -> String {
        reports.map(describe).joined(separator: "; ")
    }
}

extension Date {
    func adding(milliseconds: Int64) -> Date {
        Date(unixMilliseconds: unixMilliseconds + milliseconds)
    }
}

extension PermissionReport {
    /// Always access as README "What remindd does" defines it, from the report alone (location and services
    /// are never defaulted from earlier reports).
    var grantsAlwaysAccess: Bool { location == .always && locationServices }
}
