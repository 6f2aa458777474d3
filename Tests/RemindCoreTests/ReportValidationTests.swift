import Foundation
import RemindCore
import RemindTesting
import Testing

struct ReportValidationTests {
    static let receivedAt = Fixtures.date("2026-11-22T10:00:00Z")

    static func decode(_ body: String, receivedAt: Date = receivedAt) throws(ValidationError) -> PermissionReport {
        try PermissionReport(json: Array(body.utf8), receivedAt: receivedAt)
    }

    /// Decodes `body` expecting a refusal that names `field`.
    static func expectRejected(
        _ body: String, field: String, receivedAt: Date = receivedAt, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        do {
            let report = try decode(body, receivedAt: receivedAt)
            Issue.record("accepted \(body) as \(report)", sourceLocation: sourceLocation)
        } catch {
            #expect(error.field == field, "\(body): \(error)", sourceLocation: sourceLocation)
            #expect(!error.reason.isEmpty, sourceLocation: sourceLocation)
        }
    }

    /// Only `location` is required: accuracy defaults to full, Location Services to on,
    /// notifications and time zone to "absent", observedAt to the receipt time.
    @Test func absentFieldsTakeTheirDefaults() throws {
        let report = try Self.decode(#"{"location":"whileInUse"}"#)
        #expect(report.location == .whileInUse)
        #expect(report.accuracy == .full)
        #expect(report.locationServices == true)
        #expect(report.notifications == nil)
        #expect(report.timeZone == nil)
        #expect(report.platform == nil && report.appVersion == nil)
        #expect(report.observedAt == Self.receivedAt)
    }

    /// observedAt defaults to the receipt time at millisecond precision, as it is stored.
    @Test func absentObservedAtIsTheReceiptTimeInMilliseconds() throws {
        let receivedAt = Date(timeIntervalSince1970: 1_795_341_600.012_4)
        let report = try Self.decode(#"{"location":"always"}"#, receivedAt: receivedAt)
        #expect(report.observedAt == Date(unixMilliseconds: 1_795_341_600_012))
    }

    /// `null` counts as absent for optional fields.
    @Test func nullMembersCountAsAbsent() throws {
        let report = try Self.decode(
            #"{"location":"denied","accuracy":null,"locationServices":null,"notifications":null,"#
                + #""observedAt":null,"timeZone":null}"#)
        #expect(report == PermissionReport(location: .denied, observedAt: Self.receivedAt))
    }

    /// Every field as a device sends it is read, observedAt converted to UTC.
    @Test func everyFieldIsRead() throws {
        let report = try Self.decode(
            #"{"location":"allowOnce","accuracy":"reduced","locationServices":false,"notifications":"provisional","#
                + #""observedAt":"2026-11-22T11:59:00+02:00","timeZone":"Europe/Berlin","platform":"iOS 18.1","#
                + #""appVersion":"5.2 (311)"}"#)
        #expect(
            report
                == PermissionReport(
                    location: .allowOnce, accuracy: .reduced, locationServices: false, notifications: .provisional,
                    observedAt: Fixtures.date("2026-11-22T09:59:00Z"), timeZone: "Europe/Berlin", platform: "iOS 18.1",
                    appVersion: "5.2 (311)"))
    }

    /// Absent notifications and time zone take the last known value when folded, `unknown`
    /// and no zone when nothing was ever reported.
    @Test func absentNotificationsAndTimeZoneTakeTheLastKnownValue() throws {
        let policy = ReminderPolicy()
        let userID = Fixtures.userID()
        let first = try Self.decode(#"{"location":"whileInUse"}"#)
        var record = policy.apply(first, to: nil, userID: userID, receivedAt: Self.receivedAt).record
        #expect(record.permissions?.notifications == .unknown)
        #expect(record.permissions?.timeZone == nil)

        let second = try Self.decode(
            #"{"location":"whileInUse","notifications":"denied","timeZone":"Asia/Tokyo"}"#,
            receivedAt: Self.receivedAt + .hours(1))
        record = policy.apply(second, to: record, userID: userID, receivedAt: Self.receivedAt + .hours(1)).record
        let third = try Self.decode(#"{"location":"always"}"#, receivedAt: Self.receivedAt + .hours(2))
        record = policy.apply(third, to: record, userID: userID, receivedAt: Self.receivedAt + .hours(2)).record
        #expect(record.permissions == Permissions(location: .always, notifications: .denied, timeZone: "Asia/Tokyo"))
    }

    /// Members the daemon does not know are ignored, whatever their type.
    @Test func unknownFieldsAreIgnored() throws {
        let report = try Self.decode(
            #"{"sdkVersion":"9","location":"always","extra":{"nested":[1,null]},"locationServices":true,"n":1.5}"#)
        #expect(report == PermissionReport(location: .always, observedAt: Self.receivedAt))
    }

    /// An enum value outside the documented set is refused, naming the field.
    @Test func unknownEnumValuesAreRejected() {
        Self.expectRejected(#"{"location":"sometimes"}"#, field: "location")
        Self.expectRejected(#"{"location":"Always"}"#, field: "location")
        Self.expectRejected(#"{"location":"always","accuracy":"approximate"}"#, field: "accuracy")
        Self.expectRejected(#"{"location":"always","notifications":"ephemeral"}"#, field: "notifications")
    }

    /// `unknown` is the daemon's own placeholder, not a value a device may report.
    @Test func notificationsUnknownIsRejected() {
        Self.expectRejected(#"{"location":"always","notifications":"unknown"}"#, field: "notifications")
        for value in ["notDetermined", "denied", "provisional", "authorized"] {
            #expect(throws: Never.self) { try Self.decode(#"{"location":"always","notifications":"\#(value)"}"#) }
        }
    }

    /// A member of the wrong JSON type is refused, naming the field.
    @Test func wrongTypesAreRejected() {
        Self.expectRejected(#"{"location":"always","observedAt":1794736800}"#, field: "observedAt")
        Self.expectRejected(#"{"location":"always","locationServices":"yes"}"#, field: "locationServices")
        Self.expectRejected(#"{"location":"always","locationServices":1}"#, field: "locationServices")
        Self.expectRejected(#"{"location":5}"#, field: "location")
        Self.expectRejected(#"{"location":["always"]}"#, field: "location")
        Self.expectRejected(#"{"location":"always","accuracy":true}"#, field: "accuracy")
        Self.expectRejected(#"{"location":"always","notifications":{}}"#, field: "notifications")
        Self.expectRejected(#"{"location":"always","timeZone":1}"#, field: "timeZone")
        Self.expectRejected(#"{"location":"always","platform":false}"#, field: "platform")
        Self.expectRejected(#"{"location":"always","appVersion":5.2}"#, field: "appVersion")
    }

    /// observedAt must be an RFC 3339 timestamp.
    @Test func malformedObservedAtIsRejected() {
        Self.expectRejected(#"{"location":"always","observedAt":"yesterday"}"#, field: "observedAt")
        Self.expectRejected(#"{"location":"always","observedAt":"2026-11-22T10:00:00"}"#, field: "observedAt")
        Self.expectRejected(#"{"location":"always","observedAt":"2026-02-30T10:00:00Z"}"#, field: "observedAt")
    }

    /// A report without `location`, or with it null, is refused.
    @Test func missingLocationIsRejected() {
        Self.expectRejected(#"{}"#, field: "location")
        Self.expectRejected(#"{"accuracy":"full","locationServices":true}"#, field: "location")
        Self.expectRejected(#"{"location":null}"#, field: "location")
    }

    /// Time zones must be IANA names the system knows.
    @Test func invalidTimeZoneIsRejected() throws {
        Self.expectRejected(#"{"location":"always","timeZone":"Mars/Base"}"#, field: "timeZone")
        Self.expectRejected(#"{"location":"always","timeZone":""}"#, field: "timeZone")
        Self.expectRejected(#"{"location":"always","timeZone":"GMT+1"}"#, field: "timeZone")
        for zone in ["Europe/Berlin", "America/Argentina/Buenos_Aires", "UTC", "Etc/GMT+1"] {
            #expect(try Self.decode(#"{"location":"always","timeZone":"\#(zone)"}"#).timeZone == zone)
        }
    }

    /// observedAt may be up to 300 s ahead of the receipt time (device clock drift), no more.
    @Test func observedAtMoreThanThreeHundredSecondsAheadIsRejected() throws {
        let accepted = try Self.decode(#"{"location":"always","observedAt":"2026-11-22T10:05:00Z"}"#)
        #expect(accepted.observedAt == Self.receivedAt + .seconds(300))
        Self.expectRejected(#"{"location":"always","observedAt":"2026-11-22T10:05:01Z"}"#, field: "observedAt")
        Self.expectRejected(#"{"location":"always","observedAt":"2026-11-22T10:05:00.001Z"}"#, field: "observedAt")
        Self.expectRejected(#"{"location":"always","observedAt":"2026-11-22T12:05:01+02:00"}"#, field: "observedAt")
        let old = try Self.decode(#"{"location":"always","observedAt":"2020-01-01T00:00:00Z"}"#)
        #expect(old.observedAt == Fixtures.date("2020-01-01T00:00:00Z"))
    }

    /// platform and appVersion hold at most 64 characters (not bytes).
    @Test func freeTextLongerThanSixtyFourCharactersIsRejected() throws {
        for field in ["platform", "appVersion"] {
            let ok = String(repeating: "a", count: 64)
            let report = try Self.decode(#"{"location":"always","\#(field)":"\#(ok)"}"#)
            #expect((field == "platform" ? report.platform : report.appVersion) == ok)
            let accented = String(repeating: "é", count: 64)
            #expect(throws: Never.self) { try Self.decode(#"{"location":"always","\#(field)":"\#(accented)"}"#) }
            Self.expectRejected(
                #"{"location":"always","\#(field)":"\#(String(repeating: "a", count: 65))"}"#, field: field)
            Self.expectRejected(
                #"{"location":"always","\#(field)":"\#(String(repeating: "é", count: 65))"}"#, field: field)
            // Control characters (a NUL, which PostgreSQL's jsonb refuses; a newline in a log line).
            for escaped in [#"\u0000"#, #"\n"#, #"\u007f"#] {
                Self.expectRejected(#"{"location":"always","\#(field)":"1.0\#(escaped)"}"#, field: field)
            }
        }
    }

    /// A body that is JSON but not an object, or not JSON at all, is refused as a whole.
    @Test func bodyThatIsNotAJSONObjectIsRejected() {
        for body in ["[]", #"["location","always"]"#, #""always""#, "1", "null", "true"] {
            Self.expectRejected(body, field: "")
        }
        for body in ["", "{", #"{"location":"always""#, #"{location:"always"}"#, #"{"location":"always"} {}"#] {
            Self.expectRejected(body, field: "")
        }
        do {
            _ = try PermissionReport(json: [0x7B, 0xFF, 0x7D], receivedAt: Self.receivedAt)
            Issue.record("accepted invalid UTF-8")
        } catch {
            #expect(error.field == "")
        }
    }
}
