import Foundation
import RemindCore
import RemindTesting
import Testing

/// `motion` is a permission like the notifications: validated, folded in `observedAt` order
/// as the last known value, kept in history, and error 5 in the precedence order.
struct MotionTests {
    let start = Fixtures.date("2026-11-15T10:00:00Z")

    /// A report's motion is validated; an unknown word (or `unknown`, which no device sends)
    /// is a 400 naming `motion`.
    @Test(arguments: ["unknown", "granted", "Authorized"])
    func badMotionIsRefusedNamingTheField(_ word: String) {
        let body = #"{"location":"always","motion":"\#(word)"}"#
        #expect(throws: ValidationError.self) { try PermissionReport(json: Array(body.utf8), receivedAt: start) }
        do {
            _ = try PermissionReport(json: Array(body.utf8), receivedAt: start)
        } catch {
            #expect(error.field == "motion")
        }
    }

    /// Error 5 is last in the precedence order, for `restricted` and `denied` only.
    @Test func motionErrorFollowsThePrecedenceOrder() {
        var permissions = Permissions(
            location: .whileInUse, accuracy: .reduced, locationServices: false, notifications: .denied, motion: .denied)
        #expect(
            permissions.errors == [
                .locationServicesTurnedOff, .locationNotAuthorizedAlways, .preciseLocationNotEnabled,
                .notificationsTurnedOff, .motionNotAuthorized,
            ])
        for motion in MotionAuthorization.allCases {
            permissions = Permissions(location: .always, motion: motion)
            #expect(permissions.errors.contains(.motionNotAuthorized) == (motion == .restricted || motion == .denied))
        }
    }

    /// In order: a report without motion keeps the last known value, and a change of motion
    /// alone is a history entry.
    @Test func motionIsTheLastKnownValueInOrder() {
        var harness = PolicyHarness()
        harness.report(Fixtures.report(.always, at: "2026-11-15T10:00:00Z"))
        #expect(harness.record?.permissions?.motion == .unknown)
        harness.report(Fixtures.report(.always, at: "2026-11-15T11:00:00Z", motion: .denied))
        #expect(harness.record?.permissions?.motion == .denied)
        #expect(harness.record?.permissions?.errors == [.motionNotAuthorized])
        let unchanged = harness.report(Fixtures.report(.always, at: "2026-11-15T12:00:00Z"))
        #expect(!unchanged.changed)
        #expect(harness.record?.permissions?.motion == .denied)
        harness.report(Fixtures.report(.always, at: "2026-11-15T13:00:00Z", motion: .authorized))
        #expect(harness.record?.history.map(\.permissions.motion) == [.authorized, .denied, .unknown])
    }

    /// Out of order: a late report carrying motion lands at its place in time and becomes the
    /// current value only if nothing newer said otherwise; the same reports in any order give
    /// the same state.
    @Test func motionFoldsTheSameInAnyOrder() {
        let reports = [
            Fixtures.report(.always, at: "2026-11-15T10:00:00Z", motion: .authorized),
            Fixtures.report(.whileInUse, at: "2026-11-15T11:00:00Z"),
            Fixtures.report(.whileInUse, at: "2026-11-15T12:00:00Z", motion: .denied),
            Fixtures.report(.always, at: "2026-11-15T13:00:00Z"),
        ]
        var inOrder = PolicyHarness()
        for report in reports { inOrder.report(report) }
        #expect(inOrder.record?.permissions?.motion == .denied)
        for permutation in [[3, 2, 1, 0], [2, 0, 3, 1], [1, 3, 0, 2]] {
            var harness = PolicyHarness()
            var receivedAt = Fixtures.date("2026-11-15T14:00:00Z")
            for index in permutation {
                harness.report(reports[index], receivedAt: receivedAt)
                receivedAt = receivedAt + .seconds(1)
            }
            #expect(harness.record?.permissions?.motion == .denied, "order \(permutation)")
            #expect(harness.record?.knownMotion?.value == .denied)
        }
        // A late report with older motion never overrides the newer observation.
        var harness = PolicyHarness()
        harness.report(reports[2])
        harness.report(
            Fixtures.report(.whileInUse, at: "2026-11-15T09:00:00Z", motion: .authorized),
            receivedAt: Fixtures.date("2026-11-15T12:30:00Z"))
        #expect(harness.record?.permissions?.motion == .denied)
        #expect(harness.record?.history.last?.permissions.motion == .authorized)
    }

    /// Motion survives the user file and the history API's shape.
    @Test func motionRoundTripsThroughTheUserFile() throws {
        var harness = PolicyHarness()
        harness.report(Fixtures.report(.whileInUse, at: "2026-11-15T10:00:00Z", motion: .restricted))
        harness.report(Fixtures.report(.whileInUse, at: "2026-11-15T11:00:00Z", accuracy: .reduced))
        let record = try #require(harness.record)
        let decoded = try UserRecord(json: record.jsonBytes)
        #expect(decoded == record)
        #expect(decoded.permissions?.motion == .restricted)
        #expect(String(decoding: record.jsonBytes, as: UTF8.self).contains(#""known":{"motion":{"value":"restricted""#))
    }

    /// docs/api.md's example report from an Android 14 app is valid and reads as documented.
    @Test func androidExampleReportIsValid() throws {
        let body = """
            {"location":"whileInUse","accuracy":"reduced","locationServices":true,
             "notifications":"authorized","motion":"denied","observedAt":"2026-11-15T10:00:00.250Z",
             "timeZone":"Europe/Berlin","locale":"de-DE","platform":"android 14","appVersion":"5.2.0",
             "push":{"service":"fcm","token":"fcm-registration-token-from-FirebaseMessaging.getToken"}}
            """
        let report = try PermissionReport(json: Array(body.utf8), receivedAt: start)
        let permissions = report.permissions(after: nil)
        #expect(permissions.errors == [.locationNotAuthorizedAlways, .preciseLocationNotEnabled, .motionNotAuthorized])
        #expect(report.locale == "de-DE")
        #expect(report.platform == "android 14")
    }
}
