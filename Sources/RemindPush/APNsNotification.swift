import Crypto
import Foundation
import RemindCore

/// The request APNs gets for one event (docs/push.md "APNs"): headers and JSON payload, pure.
///
/// A reminder is an alert (`apns-push-type: alert`, priority 10) whose collapse id is the
/// episode, so a recurring reminder replaces the one on screen; a withdraw or heartbeat is a
/// background push (`content-available`, priority 5) that wakes the app to remove the
/// delivered notifications or to re-check and report.
struct APNsNotification: Sendable, Equatable {
    /// APNs refuses a longer `apns-collapse-id`.
    static let maximumCollapseIDLength = 64

    var headers: [(name: String, value: String)]
    var payload: [UInt8]

    static func == (lhs: APNsNotification, rhs: APNsNotification) -> Bool {
        lhs.payload == rhs.payload
            && lhs.headers.map { "\($0.name): \($0.value)" }
                == rhs.headers.map {
                    "\($0.name): \($0.value)"
                }
    }

    init(event: SinkEvent, eventID: String, topic: String, settingsURL: String, expiration: Date) {
        var headers: [(name: String, value: String)] = [
            ("apns-topic", topic), ("apns-id", Self.apnsID(eventID: eventID)),
            ("apns-expiration", String(Int64(expiration.timeIntervalSince1970))),
        ]
        var writer = JSONWriter(reservingCapacity: 256)
        writer.beginObject()
        writer.key("aps")
        writer.beginObject()
        if case .reminder(let reminder) = event {
            headers += [("apns-push-type", "alert"), ("apns-priority", "10")]
            if let key = event.episodeKey { headers.append(("apns-collapse-id", Self.collapseID(episodeKey: key))) }
            writer.key("alert")
            writer.beginObject()
            writer.member("title", reminder.title)
            writer.member("body", reminder.body)
            writer.endObject()
            writer.member("sound", "default")
            writer.member("thread-id", "remindd")
        } else {
            headers += [("apns-push-type", "background"), ("apns-priority", "5")]
            writer.member("content-available", 1)
        }
        writer.endObject()
        writer.key("remindd")
        writer.beginObject()
        writer.member("type", event.kind.rawValue)
        writer.member("id", eventID)
        switch event {
        case .reminder(let reminder):
            writer.member("reason", reminder.reason.rawValue)
            writer.member("url", settingsURL)
        case .withdraw(let withdraw):
            writer.member("reminderIDs", strings: withdraw.reminderIDs)
        case .heartbeat:
            break
        }
        writer.endObject()
        writer.endObject()
        self.headers = headers
        self.payload = writer.bytes
    }

    /// A UUID made from the SHA-256 of the event id: the same for every retry of one event, so
    /// APNs and the app can tell a retry from a new push; RFC 9562 version 8 (custom) bits set.
    static func apnsID(eventID: String) -> String {
        var bytes = Array(SHA256.hash(data: Array(eventID.utf8)).prefix(16))
        bytes[6] = (bytes[6] & 0x0F) | 0x80
        bytes[8] = (bytes[8] & 0x3F) | 0x80
        let uuid = UUID(
            uuid: (
                bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7], bytes[8], bytes[9],
                bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]
            ))
        return uuid.uuidString.lowercased()
    }

    /// The episode key, or its lowercase hex SHA-256 when longer than APNs allows. Shared
    /// with FCM's `collapse_key` and `tag`.
    static func collapseID(episodeKey: String) -> String {
        guard episodeKey.utf8.count > maximumCollapseIDLength else { return episodeKey }
        return SHA256.hash(data: Array(episodeKey.utf8)).map { String(format: "%02x", $0) }.joined()
    }
}
