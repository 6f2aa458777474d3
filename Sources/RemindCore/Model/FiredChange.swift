import Foundation

/// What firing a user changed, as a delta on their record (ARCHITECTURE.md "Glossary"): the delivery appended to
/// the open episode (or its suppression recorded) and the heartbeat's boundary. The scheduler
/// computes it from the user's `UserSchedule` alone (`ReminderPolicy.fire(_:now:daemonStartedAt:)`),
/// so the files backend logs it and emits the events without reading the user's file; the
/// checkpointer folds it into the file later.
///
/// Applying one is idempotent, for the record and for the schedule alike: a delivery is appended
/// only to the episode it belongs to and only when it is the next in sequence, a suppression
/// only while the episode has exactly the deliveries it had then and is not suppressed yet, a
/// heartbeat boundary only when it is later. A replay can therefore apply a user's logged
/// changes to a file or a snapshot row that holds some or all of them already; and the
/// schedule of a record a change was applied to is its schedule with the change applied
/// (`FiredChangeTests`).
public struct FiredChange: Sendable, Equatable {
    public var userID: UserID
    /// The open episode the delivery or suppression belongs to.
    public var episodeStartedAt: Date?
    /// A reminder sent or held out: the episode's next delivery.
    public var delivery: Delivery?
    /// A due reminder was suppressed (notifications off) after this many deliveries.
    public var suppressedAfter: Int?
    /// The heartbeat sent: the record's `lastHeartbeatAt` from now on.
    public var heartbeatAt: Date?

    public init(
        userID: UserID, episodeStartedAt: Date? = nil, delivery: Delivery? = nil, suppressedAfter: Int? = nil,
        heartbeatAt: Date? = nil
    ) {
        self.userID = userID
        self.episodeStartedAt = episodeStartedAt
        self.delivery = delivery
        self.suppressedAfter = suppressedAfter
        self.heartbeatAt = heartbeatAt
    }

    /// Whether it changes anything at all.
    public var isEmpty: Bool { delivery == nil && suppressedAfter == nil && heartbeatAt == nil }

    /// `{"userID":…,"episodeStartedAt":…,"delivery":{…},"suppressedAfter":…,"heartbeatAt":…}`,
    /// the delivery as the user file writes it.
    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.member("userID", userID.rawValue)
        if let episodeStartedAt { writer.member("episodeStartedAt", RFC3339.format(episodeStartedAt)) }
        if let delivery {
            writer.key("delivery")
            UserRecord.write(delivery, to: &writer)
        }
        if let suppressedAfter { writer.member("suppressedAfter", suppressedAfter) }
        if let heartbeatAt { writer.member("heartbeatAt", RFC3339.format(heartbeatAt)) }
        writer.endObject()
    }

    /// Decodes what `write` wrote; any deviation is an error naming the member.
    public init(object: JSONObject) throws(ValidationError) {
        var reader = JSONObjectReader(object)
        userID = try UserRecord.requiredUserID(&reader)
        episodeStartedAt = try UserRecord.optionalDate(&reader, "episodeStartedAt")
        delivery = try reader.object("delivery").map { object throws(ValidationError) in
            try UserRecord.readDelivery(object, path: reader.fieldPath("delivery"))
        }
        suppressedAfter = try reader.integer("suppressedAfter", in: 0...Int64(Int32.max)).map { Int($0) }
        heartbeatAt = try UserRecord.optionalDate(&reader, "heartbeatAt")
        try reader.rejectUnknownKeys()
        if (delivery != nil || suppressedAfter != nil) && episodeStartedAt == nil {
            throw ValidationError(field: "episodeStartedAt", reason: "is required with a delivery or a suppression")
        }
    }
}

extension FiredChange {
    /// What applying the change does to an episode in the given state (the user's open one, if
    /// any): the delivery to append, if it is the next in sequence, and whether to record the
    /// suppression. The one rule for records and schedules, so they cannot drift apart.
    func effect(
        onEpisode startedAt: Date?, deliveredCount: Int, isSuppressed: Bool
    ) -> (delivery: Delivery?, suppresses: Bool) {
        guard let episodeStartedAt, startedAt == episodeStartedAt else { return (nil, false) }
        let delivery = delivery.flatMap { deliveredCount == $0.sequence - 1 ? $0 : nil }
        // A suppression is judged after the delivery (a delivery ends one).
        let count = deliveredCount + (delivery == nil ? 0 : 1)
        let suppressed = delivery == nil && isSuppressed
        return (delivery, suppressedAfter.map { count == $0 && !suppressed } ?? false)
    }

    /// The heartbeat boundary to record over `current`: only a later one.
    func heartbeat(after current: Date?) -> Date? {
        guard let heartbeatAt, current.map({ $0 < heartbeatAt }) ?? true else { return nil }
        return heartbeatAt
    }
}

extension UserRecord {
    /// Applies a fired change, idempotently (see `FiredChange`); true when it changed the record.
    @discardableResult
    public mutating func apply(_ change: FiredChange) -> Bool {
        var changed = false
        if let episode = openEpisode {
            let effect = change.effect(
                onEpisode: episode.startedAt, deliveredCount: episode.deliveries.count,
                isSuppressed: episode.isSuppressed)
            if let delivery = effect.delivery {
                episodes[0].deliveries.append(delivery)
                episodes[0].isSuppressed = false
                changed = true
            }
            if effect.suppresses {
                episodes[0].isSuppressed = true
                episodes[0].suppressedCount += 1
                changed = true
            }
        }
        if let heartbeatAt = change.heartbeat(after: lastHeartbeatAt) {
            lastHeartbeatAt = heartbeatAt
            changed = true
        }
        return changed
    }
}

extension UserSchedule {
    /// Applies a fired change to the schedule exactly as `UserRecord.apply` does to the record.
    public mutating func apply(_ change: FiredChange) {
        let effect = change.effect(
            onEpisode: episodeStartedAt, deliveredCount: deliveredCount, isSuppressed: isSuppressed)
        if let delivery = effect.delivery {
            deliveredCount += 1
            lastDeliveredAt = delivery.deliveredAt
            isSuppressed = false
            if !delivery.heldOut { funnelMarks.formUnion([.reminded, FunnelMarks(channel: delivery.channel)]) }
        }
        if effect.suppresses { isSuppressed = true }
        if let heartbeatAt = change.heartbeat(after: lastHeartbeatAt) { lastHeartbeatAt = heartbeatAt }
    }
}
