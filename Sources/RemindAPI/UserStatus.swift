import Foundation
import RemindCore

/// The answer to `GET /v1/users/{userID}` and to a stored report (docs/api.md, openapi.yaml): the daemon
/// writes it, `remindctl` reads it.
public struct UserStatus: Sendable, Equatable {
    public struct EpisodeSummary: Sendable, Equatable {
        public var startedAt: Date
        public var remindersDelivered: Int
        public var remindersSuppressed: Int
        /// Reminders of a holdout episode, recorded at their due time and never sent.
        public var remindersHeldOut: Int
        /// How it opened (`first`, `again`, `downgrade`); nil for episodes stored before.
        public var opening: Episode.Opening?
        /// Reminders the user opened, asks given, shown and accepted (docs/in-app.md).
        public var opened = 0
        public var asks = 0
        public var asksShown = 0
        public var asksAccepted = 0

        public init(startedAt: Date, remindersDelivered: Int, remindersSuppressed: Int, remindersHeldOut: Int = 0) {
            self.startedAt = startedAt
            self.remindersDelivered = remindersDelivered
            self.remindersSuppressed = remindersSuppressed
            self.remindersHeldOut = remindersHeldOut
        }
    }

    /// The push address as answers show it: never the token, only its last characters.
    public struct Push: Sendable, Equatable {
        public var service: PushService
        public var environment: APNsEnvironment?
        public var tokenSuffix: String
        public var reachable: Bool
        public var unreachableReason: String?
        public var unreachableSince: Date?

        public init(
            service: PushService, environment: APNsEnvironment?, tokenSuffix: String, reachable: Bool,
            unreachableReason: String?, unreachableSince: Date?
        ) {
            self.service = service
            self.environment = environment
            self.tokenSuffix = tokenSuffix
            self.reachable = reachable
            self.unreachableReason = unreachableReason
            self.unreachableSince = unreachableSince
        }

        public init(_ address: PushAddress) {
            self.init(
                service: address.service, environment: address.environment, tokenSuffix: address.tokenSuffix,
                reachable: address.isReachable, unreachableReason: address.unreachable?.reason,
                unreachableSince: address.unreachable?.since)
        }
    }

    public var userID: UserID
    public var permissions: Permissions
    public var observedAt: Date
    public var errors: [PermissionErrorType]
    public var alwaysAccess: Bool
    public var episode: EpisodeSummary?
    public var nextReminderAt: Date?
    public var lastReminderAt: Date?
    public var reportCount: Int
    public var lastReportAt: Date
    public var locale: String?
    public var push: Push?
    /// Each configured service's state for this user (docs/configuration.md), by name.
    public var services: [String: ServiceStatus] = [:]
    /// The experiment group of the open episode, else of the last one; nil before any.
    public var group: String?
    /// The last reported platform and app version, as sent; nil until a report carries them.
    public var platform: String?
    public var appVersion: String?

    /// A status as read back from the wire (the client's side).
    public init(
        userID: UserID, permissions: Permissions, observedAt: Date, errors: [PermissionErrorType], alwaysAccess: Bool,
        episode: EpisodeSummary?, nextReminderAt: Date?, lastReminderAt: Date?, reportCount: Int, lastReportAt: Date,
        locale: String? = nil, push: Push? = nil
    ) {
        self.locale = locale
        self.push = push
        self.userID = userID
        self.permissions = permissions
        self.observedAt = observedAt
        self.errors = errors
        self.alwaysAccess = alwaysAccess
        self.episode = episode
        self.nextReminderAt = nextReminderAt
        self.lastReminderAt = lastReminderAt
        self.reportCount = reportCount
        self.lastReportAt = lastReportAt
    }

    /// The status of a stored user. `nil` only for a record without history, which the store
    /// never holds.
    public init?(record: UserRecord, policy: ReminderPolicy, daemonStartedAt: Date?) {
        guard let permissions = record.permissions, let observedAt = record.observedAt else { return nil }
        self.userID = record.userID
        self.permissions = permissions
        self.observedAt = observedAt
        self.errors = permissions.errors
        self.alwaysAccess = permissions.hasAlwaysAccess
        self.episode = record.openEpisode.map {
            var summary = EpisodeSummary(
                startedAt: $0.startedAt, remindersDelivered: $0.sent.count,
                remindersSuppressed: $0.suppressedCount, remindersHeldOut: $0.heldOutCount)
            summary.opening = $0.opening
            (summary.opened, summary.asks) = ($0.openedCount, $0.asks.count)
            (summary.asksShown, summary.asksAccepted) = ($0.asksShown, $0.asksAccepted)
            return summary
        }
        self.group = record.episodes.first?.group
        self.nextReminderAt = policy.reminderWakeAt(record, daemonStartedAt: daemonStartedAt)
        self.lastReminderAt = record.lastDelivery?.deliveredAt
        self.reportCount = record.reportCount
        self.lastReportAt = record.lastReportAt
        self.locale = record.device.locale
        self.push = record.device.push.map(Push.init)
        self.services = Dictionary(uniqueKeysWithValues: policy.services(permissions).map { ($0.name, $0.status) })
        self.platform = record.platform
        self.appVersion = record.appVersion
    }

    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.member("userID", userID.rawValue)
        writer.key("permissions")
        UserRecord.write(permissions, observedAt: observedAt, to: &writer)
        writer.member("errors", strings: errors.map(\.rawValue))
        writer.member("alwaysAccess", alwaysAccess)
        writer.key("episode")
        if let episode {
            writer.beginObject()
            writer.member("startedAt", RFC3339.format(episode.startedAt))
            writer.member("remindersDelivered", episode.remindersDelivered)
            writer.member("remindersSuppressed", episode.remindersSuppressed)
            writer.member("remindersHeldOut", episode.remindersHeldOut)
            writer.member("opening", episode.opening?.rawValue)
            writer.member("opened", episode.opened)
            writer.member("asks", episode.asks)
            writer.member("asksShown", episode.asksShown)
            writer.member("asksAccepted", episode.asksAccepted)
            writer.endObject()
        } else {
            writer.null()
        }
        writer.member("nextReminderAt", nextReminderAt.map(RFC3339.format))
        writer.member("lastReminderAt", lastReminderAt.map(RFC3339.format))
        writer.member("reportCount", reportCount)
        writer.member("lastReportAt", RFC3339.format(lastReportAt))
        writer.member("locale", locale)
        writer.key("push")
        if let push {
            writer.beginObject()
            writer.member("service", push.service.rawValue)
            writer.member("environment", push.environment?.rawValue)
            writer.member("tokenSuffix", push.tokenSuffix)
            writer.member("reachable", push.reachable)
            writer.member("unreachableReason", push.unreachableReason)
            writer.member("unreachableSince", push.unreachableSince.map(RFC3339.format))
            writer.endObject()
        } else {
            writer.null()
        }
        writeServices(to: &writer)
        writer.member("group", group)
        writer.member("platform", platform)
        writer.member("appVersion", appVersion)
        writer.endObject()
    }

    private func writeServices(to writer: inout JSONWriter) {
        writer.key("services")
        writer.beginObject()
        for (name, status) in services.sorted(by: { $0.key < $1.key }) {
            writer.key(name)
            writer.beginObject()
            writer.member("state", status.state.rawValue)
            writer.member("missing", strings: status.missing.map(\.rawValue))
            writer.endObject()
        }
        writer.endObject()
    }

    public var jsonBytes: [UInt8] {
        var writer = JSONWriter()
        write(to: &writer)
        return writer.bytes
    }
}

extension UserStatus {
    /// Reads the daemon's answer to `GET /v1/users/{userID}` and to a report: the same type the
    /// daemon writes, so the two sides cannot drift apart.
    public init(json: JSONValue) throws(ValidationError) {
        var reader = try AnswerReader(json)
        let userID: UserID
        let raw = try reader.string("userID")
        do {
            userID = try UserID(raw)
        } catch {
            throw ValidationError(field: "userID", reason: "\"\(raw)\" \(error.reason)")
        }
        var permissionsObject = try reader.object("permissions")
        var episode: EpisodeSummary?
        if var object = try reader.optionalObject("episode") {
            episode = EpisodeSummary(
                startedAt: try object.date("startedAt"), remindersDelivered: try object.int("remindersDelivered"),
                remindersSuppressed: try object.int("remindersSuppressed"),
                remindersHeldOut: (try? object.int("remindersHeldOut")) ?? 0)
            episode?.opening = (try? object.optionalString("opening")).flatMap { $0.flatMap(Episode.Opening.init) }
            episode?.opened = (try? object.int("opened")) ?? 0
            episode?.asks = (try? object.int("asks")) ?? 0
            episode?.asksShown = (try? object.int("asksShown")) ?? 0
            episode?.asksAccepted = (try? object.int("asksAccepted")) ?? 0
        }
        var push: Push?
        if var object = try reader.optionalObject("push") {
            push = Push(
                service: try object.enumeration("service", PushService.self),
                environment: try object.optionalEnumeration("environment", APNsEnvironment.self),
                tokenSuffix: try object.string("tokenSuffix"), reachable: try object.bool("reachable"),
                unreachableReason: try object.optionalString("unreachableReason"),
                unreachableSince: try object.optionalDate("unreachableSince"))
        }
        self.init(
            userID: userID, permissions: try reader.permissions("permissions"),
            observedAt: try permissionsObject.date("observedAt"), errors: try reader.errors("errors"),
            alwaysAccess: try reader.bool("alwaysAccess"), episode: episode,
            nextReminderAt: try reader.optionalDate("nextReminderAt"),
            lastReminderAt: try reader.optionalDate("lastReminderAt"), reportCount: try reader.int("reportCount"),
            lastReportAt: try reader.date("lastReportAt"), locale: try reader.optionalString("locale"), push: push)
        // Optional for a client talking to a daemon from before services.
        if var object = try reader.optionalObject("services") {
            services = try object.services()
        }
        group = try reader.optionalString("group")
        platform = try reader.optionalString("platform")
        appVersion = try reader.optionalString("appVersion")
    }
}
