import Foundation

/// The user file format (schema version 1):
///
/// ```json
/// {"schemaVersion":1,"userID":"u-42","revision":3,"reportCount":3,"lastReportAt":"…","lastHeartbeatAt":null,
///  "platform":"iOS","appVersion":"5.2","device":{"locale","push"},"permissions":{…,"observedAt":"…"},"errors":[…],
///  "history":[{"observedAt","observations","lastObservedAt","receivedAt","permissions":{…},"errors":[…]}],
///  "episodes":[{"startedAt","closedAt","suppressedCount","suppressed","deliveries":[…]}]}
/// ```
///
/// `revision` counts the record's logged changes (absent: 0). `permissions` and `errors` at the
/// top repeat the newest history entry for people reading the file; decoding takes them from
/// the history.
extension UserRecord {
    public var jsonBytes: [UInt8] { encoded(keep: nil) }

    /// The file format, with `historyKeep` and `episodesKeep` for a logged change
    /// (`RecordDelta`, whose partial record holds only the new newest history entries and
    /// episodes): the elements of the previous revision that follow them.
    func encoded(keep: (history: Range<Int>, episodes: Range<Int>)?) -> [UInt8] {
        var writer = JSONWriter(reservingCapacity: 512 + history.count * 200)
        writer.beginObject()
        writer.member("schemaVersion", Self.schemaVersion)
        writer.member("userID", userID.rawValue)
        if revision > 0 { writer.member("revision", revision) }
        writer.member("reportCount", reportCount)
        writer.member("lastReportAt", RFC3339.format(lastReportAt))
        writer.member("lastHeartbeatAt", lastHeartbeatAt.map(RFC3339.format))
        writer.member("platform", platform)
        writer.member("appVersion", appVersion)
        if !device.isEmpty {
            writer.key("device")
            device.write(to: &writer)
        }
        if knownNotifications != nil || knownTimeZone != nil || knownMotion != nil {
            writer.key("known")
            writer.beginObject()
            if let knownNotifications {
                Self.write(
                    known: "notifications", knownNotifications.value.rawValue, knownNotifications.observedAt,
                    to: &writer)
            }
            if let knownTimeZone {
                Self.write(known: "timeZone", knownTimeZone.value, knownTimeZone.observedAt, to: &writer)
            }
            if let knownMotion {
                Self.write(known: "motion", knownMotion.value.rawValue, knownMotion.observedAt, to: &writer)
            }
            writer.endObject()
        }
        if !activity.isEmpty {
            writer.key("activity")
            writer.beginArray()
            for count in activity.counts { writer.int(count) }
            writer.endArray()
        }
        // For people reading the file; a logged change (`keep`) leaves them out, since decoding
        // takes them from the history.
        if keep == nil, let newest = history.first {
            writer.key("permissions")
            Self.write(newest.permissions, observedAt: newest.lastObservedAt, to: &writer)
            writer.member("errors", strings: newest.errors.map(\.rawValue))
        }
        writer.key("history")
        writer.beginArray()
        for entry in history {
            entry.write(to: &writer)
        }
        writer.endArray()
        if let (history, episodes) = keep {
            for (name, range) in [("historyKeep", history), ("episodesKeep", episodes)] {
                writer.key(name)
                writer.beginObject()
                writer.member("from", range.lowerBound)
                writer.member("count", range.count)
                writer.endObject()
            }
        }
        writer.key("episodes")
        writer.beginArray()
        for episode in episodes {
            writer.beginObject()
            writer.member("startedAt", RFC3339.format(episode.startedAt))
            writer.member("closedAt", episode.closedAt.map(RFC3339.format))
            writer.member("suppressedCount", episode.suppressedCount)
            writer.member("suppressed", episode.isSuppressed)
            writer.member("group", episode.group)
            writer.member("reason", episode.reason?.rawValue)
            if let sendTime = episode.sendTime { writer.member("sendTime", sendTime.rawValue) }
            if let opening = episode.opening { writer.member("opening", opening.rawValue) }
            writer.key("deliveries")
            writer.beginArray()
            for delivery in episode.deliveries { Self.write(delivery, to: &writer) }
            writer.endArray()
            if !episode.asks.isEmpty {
                writer.key("asks")
                writer.beginArray()
                for ask in episode.asks { Self.write(ask, to: &writer) }
                writer.endArray()
            }
            writer.endObject()
        }
        writer.endArray()
        writer.endObject()
        return writer.bytes
    }

    /// Decodes a user file. Any deviation from the format is an error naming the field: such
    /// a file is quarantined rather than half-read.
    public init(json bytes: some Collection<UInt8>) throws(ValidationError) {
        let value: JSONValue
        do {
            value = try JSONParser.parse(bytes)
        } catch {
            throw ValidationError(field: "", reason: "not valid JSON (\(error))")
        }
        guard case .object(let object) = value else {
            throw ValidationError(field: "", reason: "must be a JSON object")
        }
        try self.init(object: object)
    }

    /// Decodes a user record already parsed (as a member of a write-ahead log entry).
    public init(object: JSONObject) throws(ValidationError) {
        var reader = JSONObjectReader(object)
        let version = try reader.integer("schemaVersion", in: 0...Int64.max)
        guard version == Int64(Self.schemaVersion) else {
            throw ValidationError(
                field: "schemaVersion",
                reason: "must be \(Self.schemaVersion), got \(version.map(String.init) ?? "none")")
        }
        let userID = try Self.requiredUserID(&reader)
        let revision = try reader.integer("revision", in: 0...Int64.max) ?? 0
        let reportCount = try reader.integer("reportCount", in: 0...Int64.max) ?? 0
        let lastReportAt = try Self.requiredDate(&reader, "lastReportAt")
        let lastHeartbeatAt = try Self.optionalDate(&reader, "lastHeartbeatAt")
        let platform = try reader.string("platform")
        let appVersion = try reader.string("appVersion")
        var device = DeviceState()
        if let deviceObject = try reader.object("device") {
            device = try DeviceState(fileObject: deviceObject, path: "device")
        }
        var knownNotifications: Known<NotificationAuthorization>?
        var knownTimeZone: Known<String>?
        var knownMotion: Known<MotionAuthorization>?
        if let known = try reader.object("known") {
            var knownReader = JSONObjectReader(known, path: "known")
            knownNotifications = try Self.readKnown(&knownReader, "notifications") { register throws(ValidationError) in
                try register.enumeration("value", NotificationAuthorization.self)
            }
            knownTimeZone = try Self.readKnown(&knownReader, "timeZone") { register throws(ValidationError) in
                try register.string("value")
            }
            knownMotion = try Self.readKnown(&knownReader, "motion") { register throws(ValidationError) in
                try register.enumeration("value", MotionAuthorization.self)
            }
        }

        var activity = ActivityHistogram()
        if let counts = try reader.array("activity") {
            let numbers = counts.compactMap { value -> Int? in
                if case .int(let number) = value { return Int(exactly: number) }
                return nil
            }
            guard numbers.count == counts.count, let read = ActivityHistogram(counts: numbers) else {
                throw ValidationError(field: "activity", reason: "must be 24 counts from 0 to 255")
            }
            activity = read
        }

        let history = try Self.readHistory(try reader.array("history") ?? [], path: "history")
        var episodes: [Episode] = []
        for (index, element) in (try reader.array("episodes") ?? []).enumerated() {
            let path = "episodes[\(index)]"
            guard case .object(let episodeObject) = element else {
                throw ValidationError(field: path, reason: "must be an object")
            }
            var episode = JSONObjectReader(episodeObject, path: path)
            let startedAt = try Self.requiredDate(&episode, "startedAt")
            let closedAt = try Self.optionalDate(&episode, "closedAt")
            let suppressedCount = try episode.integer("suppressedCount", in: 0...Int64(Int32.max)) ?? 0
            let suppressed = try episode.bool("suppressed") ?? false
            var deliveries: [Delivery] = []
            for (deliveryIndex, deliveryElement) in (try episode.array("deliveries") ?? []).enumerated() {
                let deliveryPath = "\(path).deliveries[\(deliveryIndex)]"
                guard case .object(let deliveryObject) = deliveryElement else {
                    throw ValidationError(field: deliveryPath, reason: "must be an object")
                }
                deliveries.append(try Self.readDelivery(deliveryObject, path: deliveryPath))
            }
            var asks: [Ask] = []
            for (askIndex, askElement) in (try episode.array("asks") ?? []).enumerated() {
                let askPath = "\(path).asks[\(askIndex)]"
                guard case .object(let askObject) = askElement else {
                    throw ValidationError(field: askPath, reason: "must be an object")
                }
                asks.append(try Self.readAsk(askObject, path: askPath))
            }
            episodes.append(
                Episode(
                    startedAt: startedAt, closedAt: closedAt, deliveries: deliveries,
                    suppressedCount: Int(suppressedCount), isSuppressed: suppressed,
                    group: try episode.string("group") ?? Experiment.defaultGroup,
                    reason: try episode.enumeration("reason", PermissionErrorType.self),
                    sendTime: try episode.enumeration("sendTime", SendTime.Arm.self),
                    opening: try episode.enumeration("opening", Episode.Opening.self), asks: asks))
        }
        guard !history.isEmpty else {
            throw ValidationError(field: "history", reason: "must not be empty")
        }
        self.init(
            userID: userID, history: history, episodes: episodes, reportCount: Int(reportCount),
            lastReportAt: lastReportAt, lastHeartbeatAt: lastHeartbeatAt, platform: platform, appVersion: appVersion,
            knownNotifications: knownNotifications, knownTimeZone: knownTimeZone, device: device,
            knownMotion: knownMotion)
        self.revision = Int(revision)
        self.activity = activity
    }

    /// Decodes a list of history entries in the file's format (`path` names it in errors): the
    /// user file's `history`, or a stored list of older entries on their own.
    public static func readHistory(_ elements: [JSONValue], path: String) throws(ValidationError) -> [HistoryEntry] {
        var history: [HistoryEntry] = []
        history.reserveCapacity(elements.count)
        for (index, element) in elements.enumerated() {
            let path = "\(path)[\(index)]"
            guard case .object(let entryObject) = element else {
                throw ValidationError(field: path, reason: "must be an object")
            }
            var entry = JSONObjectReader(entryObject, path: path)
            let observedAt = try Self.requiredDate(&entry, "observedAt")
            var observations: [Date] = []
            for (offset, value) in (try entry.array("observations") ?? []).enumerated() {
                guard case .string(let text) = value, let date = RFC3339.parse(text) else {
                    throw ValidationError(
                        field: "\(path).observations[\(offset)]", reason: "must be an RFC 3339 timestamp")
                }
                observations.append(date)
            }
            if let last = try Self.optionalDate(&entry, "lastObservedAt") { observations.append(last) }
            let receivedAt = try Self.requiredDate(&entry, "receivedAt")
            guard let permissionsObject = try entry.object("permissions") else {
                throw ValidationError(field: "\(path).permissions", reason: "is required")
            }
            let permissions = try Self.readPermissions(permissionsObject, path: "\(path).permissions")
            history.append(
                HistoryEntry(
                    observedAt: observedAt, laterObservations: observations, receivedAt: receivedAt,
                    permissions: permissions))
        }
        return history
    }
}
