import Foundation
import RemindCore

/// The daemon's status (`GET /v1/status`): the daemon writes it, `remindctl` reads it.
public struct DaemonStatus: Sendable, Equatable {
    public struct Sink: Sendable, Equatable {
        public var name: String
        public var type: String
        public var delivered: Int
        public var failed: Int
        public var pending: Int

        public init(name: String, type: String, delivered: Int, failed: Int, pending: Int) {
            self.name = name
            self.type = type
            self.delivered = delivered
            self.failed = failed
            self.pending = pending
        }
    }

    public var version: String
    public var startedAt: Date
    public var users: Int
    public var openEpisodes: Int
    public var pendingReminders: Int
    public var nextReminderAt: Date?
    /// Events every sink acknowledged.
    public var delivered: Int
    public var suppressed: Int
    /// Failed delivery attempts.
    public var failed: Int
    public var deadLetters: Int
    public var quarantined: Int
    public var sinks: [Sink]
    public var notification: LocationNotificationConfiguration
    /// Users per configured service and state (docs/configuration.md), every state present.
    public var services: [String: [ServiceState: Int]] = [:]

    public init(
        version: String, startedAt: Date, users: Int, openEpisodes: Int, pendingReminders: Int,
        nextReminderAt: Date?, delivered: Int, suppressed: Int, failed: Int, deadLetters: Int, quarantined: Int,
        sinks: [Sink], notification: LocationNotificationConfiguration
    ) {
        self.version = version
        self.startedAt = startedAt
        self.users = users
        self.openEpisodes = openEpisodes
        self.pendingReminders = pendingReminders
        self.nextReminderAt = nextReminderAt
        self.delivered = delivered
        self.suppressed = suppressed
        self.failed = failed
        self.deadLetters = deadLetters
        self.quarantined = quarantined
        self.sinks = sinks
        self.notification = notification
    }

    public var jsonBytes: [UInt8] {
        var writer = JSONWriter()
        writer.beginObject()
        writer.member("version", version)
        writer.member("startedAt", RFC3339.format(startedAt))
        writer.member("users", users)
        writer.member("openEpisodes", openEpisodes)
        writer.member("pendingReminders", pendingReminders)
        writer.member("nextReminderAt", nextReminderAt.map(RFC3339.format))
        writer.member("delivered", delivered)
        writer.member("suppressed", suppressed)
        writer.member("failed", failed)
        writer.member("deadLetters", deadLetters)
        writer.member("quarantined", quarantined)
        writer.key("sinks")
        writer.beginArray()
        for sink in sinks {
            writer.beginObject()
            writer.member("name", sink.name)
            writer.member("type", sink.type)
            writer.member("delivered", sink.delivered)
            writer.member("failed", sink.failed)
            writer.member("pending", sink.pending)
            writer.endObject()
        }
        writer.endArray()
        writer.key("notification")
        writer.value(notification.json)
        writer.key("services")
        writer.beginObject()
        for (name, counts) in services.sorted(by: { $0.key < $1.key }) {
            writer.key(name)
            writer.beginObject()
            for state in ServiceState.allCases { writer.member(state.rawValue, counts[state] ?? 0) }
            writer.endObject()
        }
        writer.endObject()
        writer.endObject()
        return writer.bytes
    }

    public init(json: JSONValue) throws(ValidationError) {
        var reader = try AnswerReader(json)
        version = try reader.string("version")
        startedAt = try reader.date("startedAt")
        users = try reader.int("users")
        openEpisodes = try reader.int("openEpisodes")
        pendingReminders = try reader.int("pendingReminders")
        nextReminderAt = try reader.optionalDate("nextReminderAt")
        delivered = try reader.int("delivered")
        suppressed = try reader.int("suppressed")
        failed = try reader.int("failed")
        deadLetters = try reader.int("deadLetters")
        quarantined = try reader.int("quarantined")
        sinks = try reader.array("sinks") { value, path throws(ValidationError) in
            var sink = try AnswerReader(value, path: path)
            return Sink(
                name: try sink.string("name"), type: try sink.string("type"), delivered: try sink.int("delivered"),
                failed: try sink.int("failed"), pending: try sink.int("pending"))
        }
        guard case .object(let notification) = try reader.value("notification") else {
            throw ValidationError(field: "notification", reason: "must be an object")
        }
        self.notification = try LocationNotificationConfiguration(object: notification)
        // Optional for a client talking to a daemon from before services.
        if var object = try reader.optionalObject("services") {
            services = try object.serviceCounts()
        }
    }
}
