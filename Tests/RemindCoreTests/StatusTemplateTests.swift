import Foundation
import RemindAPI
import RemindCore
import RemindTesting
import Testing

struct StatusTemplateTests {
    let start = Fixtures.date("2026-11-15T10:00:00Z")

    func status(_ report: PermissionReport, services: [ServiceDefinition] = []) throws -> UserStatus {
        let policy = ReminderPolicy(configuration: PolicyConfiguration(services: services))
        let record = policy.apply(report, to: nil, userID: Fixtures.userID("templated"), receivedAt: start).record
        return try #require(UserStatus(record: record, policy: policy, daemonStartedAt: start))
    }

    /// The template renders exactly the status it was made from, and with other counters
    /// exactly the status that has them, whatever else the status holds.
    @Test func rendersTheStatusWithTheGivenCounters() throws {
        let token = String(repeating: "0f", count: 32)
        var full = PermissionReport(
            location: .whileInUse, notifications: .authorized, observedAt: start, timeZone: "Europe/Berlin",
            locale: "de-CH", motion: .authorized)
        full.push = .set(try PushAddress(reportObject: ["service": .string("apns"), "token": .string(token)]))
        let services = [ServiceDefinition(name: "geofence", requires: [.always])]
        for original in [
            try status(PermissionReport(location: .always, observedAt: start)), try status(full, services: services),
        ] {
            let template = StatusTemplate(original)
            #expect(
                template.render(
                    observedAt: original.observedAt, reportCount: original.reportCount,
                    lastReportAt: original.lastReportAt) == original.jsonBytes)
            var moved = original
            moved.observedAt = start.addingTimeInterval(3_600.125)
            moved.reportCount = 123_456
            moved.lastReportAt = start.addingTimeInterval(86_400)
            let rendered = template.render(
                observedAt: moved.observedAt, reportCount: moved.reportCount, lastReportAt: moved.lastReportAt)
            #expect(String(decoding: rendered, as: UTF8.self) == String(decoding: moved.jsonBytes, as: UTF8.self))
        }
    }
}
