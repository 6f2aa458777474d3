import Foundation
import RemindCore

/// The FCM HTTP v1 `messages:send` body for one event (docs/push.md "FCM"), pure.
///
/// A reminder is a notification message with the episode as `collapse_key` and `tag` (and as
/// `apns-collapse-id` for iOS apps on FCM), so a recurring reminder replaces the one shown;
/// withdraws and heartbeats are data-only messages the app handles in the background. Data
/// values are strings, as FCM requires.
enum FCMMessage {
    static func body(event: SinkEvent, eventID: String, token: String, settingsURL: String?) -> [UInt8] {
        var writer = JSONWriter(reservingCapacity: 512)
        writer.beginObject()
        writer.key("message")
        writer.beginObject()
        writer.member("token", token)
        var data: [(String, String)] = [("remindd_type", event.kind.rawValue), ("remindd_id", eventID)]
        switch event {
        case .reminder(let reminder):
            let collapse = APNsNotification.collapseID(episodeKey: event.episodeKey ?? eventID)
            writer.key("notification")
            writer.beginObject()
            writer.member("title", reminder.title)
            writer.member("body", reminder.body)
            writer.endObject()
            writer.key("android")
            writer.beginObject()
            writer.member("priority", "high")
            writer.member("collapse_key", collapse)
            writer.key("notification")
            writer.beginObject()
            writer.member("tag", collapse)
            writer.endObject()
            writer.endObject()
            writer.key("apns")
            writer.beginObject()
            writer.key("headers")
            writer.beginObject()
            writer.member("apns-collapse-id", collapse)
            writer.endObject()
            writer.endObject()
            data.append(("remindd_reason", reminder.reason.rawValue))
            if let settingsURL { data.append(("remindd_url", settingsURL)) }
        case .withdraw(let withdraw):
            var ids = JSONWriter()
            ids.value(.array(withdraw.reminderIDs.map(JSONValue.string)))
            data.append(("remindd_reminder_ids", String(decoding: ids.bytes, as: UTF8.self)))
        case .heartbeat:
            break
        }
        writer.key("data")
        writer.beginObject()
        for (key, value) in data { writer.member(key, value) }
        writer.endObject()
        writer.endObject()
        writer.endObject()
        return writer.bytes
    }
}
