import Foundation

/// What remindd tells the outside world: one JSON object per event, the same bytes for every
/// sink. Each kind has a fixed set of keys, always in the same order.
public enum SinkEvent: Sendable, Equatable {
    case reminder(Reminder)
    case withdraw(Withdraw)
    case heartbeat(Heartbeat)

    public enum Kind: String, Sendable, CaseIterable {
        case reminder, withdraw, heartbeat
    }

    /// Sent when Always access is still missing at the due time.
    public struct Reminder: Sendable, Equatable {
        public var userID: UserID
        public var title: String
        public var body: String
        public var reason: PermissionErrorType
        public var errors: [PermissionErrorType]
        public var sequence: Int
        public var episodeStartedAt: Date
        public var dueAt: Date
        public var createdAt: Date
        /// The channel it takes (docs/fallback.md), and why when that is the fallback.
        public var channel: ReminderChannel
        public var because: FallbackReason?
        /// The user's reported locale and platform (`ios`, `android`, `other`), nil when never
        /// reported: what a fallback's receiver picks its own copy by.
        public var locale: String?
        public var platform: ReportedPlatform?
        /// Sent again, to the fallback sinks alone, after a push sink found the token dead:
        /// the other sinks had it already. Not part of its JSON (`because` says `unreachable`).
        public var rerouted = false

        public init(
            userID: UserID, title: String, body: String, reason: PermissionErrorType, errors: [PermissionErrorType],
            sequence: Int, episodeStartedAt: Date, dueAt: Date, createdAt: Date, channel: ReminderChannel = .push,
            because: FallbackReason? = nil, locale: String? = nil, platform: ReportedPlatform? = nil
        ) {
            self.channel = channel
            self.because = because
            self.locale = locale
            self.platform = platform
            self.userID = userID
            self.title = title
            self.body = body
            self.reason = reason
            self.errors = errors
            self.sequence = sequence
            self.episodeStartedAt = episodeStartedAt
            self.dueAt = dueAt
            self.createdAt = createdAt
        }

        /// `user/episode start in Unix seconds/sequence`: stable across retries and restarts.
        public var id: String { Self.id(userID: userID, episodeStartedAt: episodeStartedAt, sequence: sequence) }

        public static func id(userID: UserID, episodeStartedAt: Date, sequence: Int) -> String {
            "\(userID.rawValue)/\(episodeStartedAt.unixSeconds)/\(sequence)"
        }
    }

    /// Sent when an episode in which reminders were delivered ends: the app can remove them.
    public struct Withdraw: Sendable, Equatable {
        public var userID: UserID
        public var reminderIDs: [String]
        public var episodeStartedAt: Date
        public var createdAt: Date
        /// The sinks its reminders reached, which it goes to (not part of its JSON: a sink
        /// reading it back gets `always`).
        public var audience: SinkAudience

        public init(
            userID: UserID, reminderIDs: [String], episodeStartedAt: Date, createdAt: Date,
            audience: SinkAudience = .always
        ) {
            self.audience = audience
            self.userID = userID
            self.reminderIDs = reminderIDs
            self.episodeStartedAt = episodeStartedAt
            self.createdAt = createdAt
        }

        public var id: String { "\(userID.rawValue)/\(episodeStartedAt.unixSeconds)/withdraw" }
    }

    /// Sent when a user has been silent for a heartbeat interval: the app backend can send a
    /// silent push that makes the device re-check and report.
    public struct Heartbeat: Sendable, Equatable {
        public var userID: UserID
        public var lastReportAt: Date
        /// The heartbeat's due time, which names it.
        public var dueAt: Date
        public var createdAt: Date

        public init(userID: UserID, lastReportAt: Date, dueAt: Date, createdAt: Date) {
            self.userID = userID
            self.lastReportAt = lastReportAt
            self.dueAt = dueAt
            self.createdAt = createdAt
        }

        public var id: String { "\(userID.rawValue)/heartbeat/\(dueAt.unixSeconds)" }
    }

    public var kind: Kind {
        switch self {
        case .reminder: .reminder
        case .withdraw: .withdraw
        case .heartbeat: .heartbeat
        }
    }

    public var id: String {
        switch self {
        case .reminder(let event): event.id
        case .withdraw(let event): event.id
        case .heartbeat(let event): event.id
        }
    }

    public var userID: UserID {
        switch self {
        case .reminder(let event): event.userID
        case .withdraw(let event): event.userID
        case .heartbeat(let event): event.userID
        }
    }

    public var createdAt: Date {
        switch self {
        case .reminder(let event): event.createdAt
        case .withdraw(let event): event.createdAt
        case .heartbeat(let event): event.createdAt
        }
    }

    /// The event's JSON: compact, keys in that order, no trailing newline.
    public var jsonBytes: [UInt8] {
        var writer = JSONWriter(reservingCapacity: 320)
        writer.beginObject()
        writer.member("type", kind.rawValue)
        writer.member("id", id)
        writer.member("userID", userID.rawValue)
        switch self {
        case .reminder(let event):
            writer.member("title", event.title)
            writer.member("body", event.body)
            writer.member("reason", event.reason.rawValue)
            writer.member("errors", strings: event.errors.map(\.rawValue))
            writer.member("sequence", event.sequence)
            writer.member("episodeStartedAt", RFC3339.format(event.episodeStartedAt))
            writer.member("dueAt", RFC3339.format(event.dueAt))
            writer.member("channel", event.channel.rawValue)
            writer.member("because", event.because?.rawValue)
            writer.member("locale", event.locale)
            writer.member("platform", event.platform?.rawValue)
        case .withdraw(let event):
            writer.member("reminderIDs", strings: event.reminderIDs)
            writer.member("episodeStartedAt", RFC3339.format(event.episodeStartedAt))
        case .heartbeat(let event):
            writer.member("lastReportAt", RFC3339.format(event.lastReportAt))
        }
        writer.member("createdAt", RFC3339.format(createdAt))
        writer.endObject()
        return writer.bytes
    }

    public var json: String { String(decoding: jsonBytes, as: UTF8.self) }

    /// The sinks it goes to (`SinkAudience`).
    public var audience: SinkAudience {
        switch self {
        case .reminder(let event):
            event.rerouted ? .fallbackSinks : SinkAudience(channel: event.channel, because: event.because)
        case .withdraw(let event): event.audience
        case .heartbeat: .always
        }
    }
}
