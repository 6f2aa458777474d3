import RemindCore
import Testing

struct ConfigurationTests {
    /// Zendrive's names and defaults, exactly.
    @Test func locationNotificationConfigurationDefaults() throws {
        let defaults = LocationNotificationConfiguration()
        #expect(defaults.showRecurringNotification == false)
        #expect(defaults.notificationTriggerDelay == 604_800)
        #expect(defaults.notificationTitle == "App is unable to record trips")
        #expect(defaults.notificationDescription == "Please grant Always access for location.")
        #expect(try LocationNotificationConfiguration(object: [:]) == defaults)
        #expect(
            defaults.json.serialized
                == #"{"showRecurringNotification":false,"notificationTriggerDelay":604800,"notificationTitle":"App is unable to record trips","notificationDescription":"Please grant Always access for location.","remindFor":["locationServicesTurnedOff","locationNotAuthorizedAlways"],"byReason":{},"localizations":{},"sendTime":"due"}"#
        )
    }

    /// The delay must be an integer ≥ 1 and the title non-empty; errors name the key path.
    @Test func locationNotificationConfigurationValidation() {
        let cases: [(JSONObject, String)] = [
            (["notificationTriggerDelay": .int(0)], "notification.notificationTriggerDelay"),
            (["notificationTriggerDelay": .double(1.5)], "notification.notificationTriggerDelay"),
            (["notificationTriggerDelay": .string("7d")], "notification.notificationTriggerDelay"),
            (["notificationTitle": .string("  ")], "notification.notificationTitle"),
            (["showRecurringNotification": .string("yes")], "notification.showRecurringNotification"),
            (["recurring": .bool(true)], "notification.recurring"),
        ]
        for (object, field) in cases {
            #expect(throws: ValidationError.self) { try LocationNotificationConfiguration(object: object) }
            do {
                _ = try LocationNotificationConfiguration(object: object)
            } catch {
                #expect(error.field == field)
            }
        }
    }

    /// Quiet hours parse HH:MM and refuse anything else, naming the key.
    @Test func quietHoursParsing() throws {
        let parsed = try QuietHours(
            object: ["start": .string("21:00"), "end": .string("08:30")], path: "schedule.quietHours")
        #expect(parsed == QuietHours(start: 21 * 60, end: 8 * 60 + 30))
        #expect(parsed.json.serialized == #"{"start":"21:00","end":"08:30"}"#)
        for bad in ["24:00", "9:00", "21:60", "2100", ""] {
            do {
                _ = try QuietHours(
                    object: ["start": .string(bad), "end": .string("08:00")], path: "schedule.quietHours")
                Issue.record("accepted \(bad)")
            } catch {
                #expect(error.field == "schedule.quietHours.start")
            }
        }
        #expect(throws: ValidationError.self) {
            try QuietHours(object: ["start": .string("08:00"), "end": .string("08:00")], path: "q")
        }
    }
}
