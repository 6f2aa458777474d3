import Foundation
import RemindCore
import RemindTesting
import Testing

/// The report's device fields (`push`, `locale`, docs/push.md): validated, kept as the
/// newest report received says, durable, and outside the fold.
struct DeviceReportTests {
    static let apnsToken = String(repeating: "ab12", count: 16)
    static let receivedAt = Fixtures.date("2026-11-22T10:00:00Z")
    let policy = ReminderPolicy(configuration: PolicyConfiguration())

    func report(_ body: String, at date: Date = receivedAt) throws -> PermissionReport {
        try PermissionReport(json: Array(body.utf8), receivedAt: date)
    }

    @Test func apnsAddressIsReadLowercasedWithProductionAsDefault() throws {
        let upper = Self.apnsToken.uppercased()
        let report = try report(#"{"location":"always","push":{"service":"apns","token":"\#(upper)"}}"#)
        #expect(report.push == .set(PushAddress(service: .apns, token: Self.apnsToken, environment: .production)))
        // The expectation above recorded it if there is no address.
        guard case .set(let address) = report.push else { return }
        #expect(address.token == Self.apnsToken)
        #expect(address.tokenSuffix == String(Self.apnsToken.suffix(8)))
    }

    @Test func fcmAddressHasNoEnvironmentAndNullForgets() throws {
        let fcm = try report(#"{"location":"always","push":{"service":"fcm","token":"dGVzdA:APA91b-x_y"}}"#)
        #expect(fcm.push == .set(PushAddress(service: .fcm, token: "dGVzdA:APA91b-x_y")))
        #expect(try report(#"{"location":"always","push":null}"#).push == .forget)
        #expect(try report(#"{"location":"always"}"#).push == .unchanged)
    }

    @Test(arguments: [
        (#"{"service":"apns","token":"abc"}"#, "push.token"),
        (#"{"service":"apns","token":"\#(String(repeating: "g", count: 64))"}"#, "push.token"),
        (#"{"service":"apns","token":"\#(String(repeating: "a", count: 201))"}"#, "push.token"),
        (#"{"service":"fcm","token":""}"#, "push.token"),
        (#"{"service":"fcm","token":"has space"}"#, "push.token"),
        (#"{"service":"fcm","token":"\#(String(repeating: "a", count: 4097))"}"#, "push.token"),
        (#"{"service":"fcm","token":"x","environment":"production"}"#, "push.environment"),
        (
            #"{"service":"apns","token":"\#(String(repeating: "a", count: 64))","environment":"staging"}"#,
            "push.environment"
        ),
        (#"{"service":"gcm","token":"x"}"#, "push.service"),
        (#"{"token":"x"}"#, "push.service"),
        (#"{"service":"fcm"}"#, "push.token"),
        (#"{"service":"fcm","token":7}"#, "push.token"),
        (#""abc""#, "push"),
    ])
    func badAddressesAreRefusedNamingTheField(push: String, field: String) {
        do {
            _ = try report(#"{"location":"always","push":\#(push)}"#)
            Issue.record("accepted \(push)")
        } catch let error as ValidationError {
            #expect(error.field == field)
            // The refusal never quotes the token back.
            #expect(!error.reason.contains("aaaaaaaa") && !error.reason.contains("gggggggg"))
        } catch {
            Issue.record("\(error)")
        }
    }

    @Test(arguments: ["d", "de_CH", "de CH", String(repeating: "a", count: 36), "dé"])
    func badLocalesAreRefused(locale: String) {
        #expect(throws: ValidationError.self) { try report(#"{"location":"always","locale":"\#(locale)"}"#) }
    }

    @Test func localeIsKeptAsSent() throws {
        #expect(try report(#"{"location":"always","locale":"de-CH"}"#).locale == "de-CH")
        #expect(try report(#"{"location":"always","locale":"zh-Hant-TW"}"#).locale == "zh-Hant-TW")
    }

    /// A report that changes only the device adds no history but is a change to make durable;
    /// the newest report received wins even with an older `observedAt`.
    @Test func deviceChangeIsDurableWithoutHistory() throws {
        let userID = try UserID("u-1")
        let first = policy.apply(
            try report(#"{"location":"always","observedAt":"2026-11-22T09:00:00Z"}"#), to: nil, userID: userID,
            receivedAt: Self.receivedAt)
        let push = #"{"service":"apns","token":"\#(Self.apnsToken)"}"#
        let second = policy.apply(
            try report(#"{"location":"always","observedAt":"2026-11-22T08:00:00Z","push":\#(push),"locale":"fr"}"#),
            to: first.record, userID: userID, receivedAt: Self.receivedAt.addingTimeInterval(1))
        #expect(second.changed)
        #expect(second.record.history.count == 1)
        #expect(second.record.device.push?.token == Self.apnsToken)
        #expect(second.record.device.locale == "fr")
        let same = policy.apply(
            try report(#"{"location":"always","push":\#(push)}"#), to: second.record, userID: userID,
            receivedAt: Self.receivedAt.addingTimeInterval(2))
        #expect(!same.changed)
        let forgotten = policy.apply(
            try report(#"{"location":"always","push":null}"#), to: same.record, userID: userID,
            receivedAt: Self.receivedAt.addingTimeInterval(3))
        #expect(forgotten.changed)
        #expect(forgotten.record.device.push == nil)
        #expect(forgotten.record.device.locale == "fr")
    }

    /// The same dead token reported again stays unreachable; a different one clears it.
    @Test func onlyADifferentTokenClearsUnreachability() {
        let dead = PushAddress(
            service: .apns, token: Self.apnsToken,
            unreachable: .init(reason: "Unregistered", since: Self.receivedAt))
        var device = DeviceState(push: dead)
        device.apply(locale: nil, push: .set(PushAddress(service: .apns, token: Self.apnsToken.uppercased())))
        #expect(device.push == dead)
        let fresh = PushAddress(service: .apns, token: String(repeating: "cd", count: 32))
        device.apply(locale: nil, push: .set(fresh))
        #expect(device.push == fresh)
        #expect(device.push?.isReachable == true)
    }

    @Test func deviceRoundTripsThroughTheUserFile() throws {
        let userID = try UserID("u-2")
        var record = policy.apply(
            try report(#"{"location":"whileInUse"}"#), to: nil, userID: userID, receivedAt: Self.receivedAt
        ).record
        record.device = DeviceState(
            locale: "de-CH",
            push: PushAddress(
                service: .apns, token: Self.apnsToken, environment: .development,
                unreachable: .init(reason: "BadDeviceToken", since: Self.receivedAt)))
        #expect(try UserRecord(json: record.jsonBytes) == record)
        record.device = DeviceState(push: PushAddress(service: .fcm, token: "f:1"))
        #expect(try UserRecord(json: record.jsonBytes) == record)
    }
}
