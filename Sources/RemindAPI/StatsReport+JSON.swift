import Foundation
import RemindCore

/// `GET /v1/stats` on the wire (docs/outcomes.md): the daemon writes it, `remindctl stats` reads it.
///
/// ```json
/// {"since":"…","until":"…",
///  "groups":[{"group":"default","episodes":1200,"open":300,"resolved":600,"forgotten":0,
///             "resolutionRate":0.5,"resolutionRateCI95":[0.47,0.53],
///             "timeToFixSeconds":{"p50":86400,"p90":604800},
///             "resolvedAfterReminders":{"0":200,"1":300,"2":80,"3+":20}}],
///  "byReason":{"locationNotAuthorizedAlways":{"episodes":1100,"resolved":560}},
///  "upliftVsHoldout":{"default":0.12},
///  "allocation":{"type":"adaptive","computedAt":"…","learned":true,
///                "groups":{"default":{"weight":0.6,"probabilityBest":0.93,"successes":120,"failures":300}}},
///  "bySendTime":{"due":{"episodes":…,"resolved":…,"resolutionRate":…,"resolutionRateCI95":[…]},"active":{…}},
///  "sendTimeUplift":0.02,
///  "byChannel":{"push":{"episodes":…,"resolved":…,"resolutionRate":…,"resolutionRateCI95":[…]},"fallback":{…}},
///  "funnel":{"default":{"episodes":{"count":1200},"reminded":{"count":900,"rate":0.75,"rateCI95":[…]},…,
///            "resolved":{…}},"byReason":{<reason>:{…}},"byPlatform":{"ios":{…}}},
///  "resolvedAfterAsk":{"default":{"accepted":{"episodes","resolved","rate","rateCI95"},"notAccepted":{…}}}}
/// ```
///
/// `allocation` is `{"type":"fixed","groups":{<name>:{"weight":…}}}` with fixed weights;
/// `bySendTime` and `sendTimeUplift` appear only while `notification.sendTime` is `active`.
extension StatsReport {
    static let reminderBuckets = ["0", "1", "2", "3+"]

    public var jsonBytes: [UInt8] {
        var writer = JSONWriter(reservingCapacity: 1024)
        writer.beginObject()
        writer.member("since", RFC3339.format(since))
        writer.member("until", RFC3339.format(until))
        writer.key("groups")
        writer.beginArray()
        for group in groups {
            writer.beginObject()
            writer.member("group", group.group)
            writer.member("episodes", group.episodes)
            writer.member("open", group.open)
            writer.member("resolved", group.resolved)
            writer.member("forgotten", group.forgotten)
            writer.key("resolutionRate")
            writer.value(group.resolutionRate.map(Self.rounded) ?? .null)
            writer.key("resolutionRateCI95")
            writer.value(
                group.resolutionRateCI95.map { .array([Self.rounded($0.lowerBound), Self.rounded($0.upperBound)]) }
                    ?? .null)
            writer.key("timeToFixSeconds")
            writer.beginObject()
            writer.key("p50")
            writer.value(group.timeToFixP50.map { .double($0.rounded()) } ?? .null)
            writer.key("p90")
            writer.value(group.timeToFixP90.map { .double($0.rounded()) } ?? .null)
            writer.endObject()
            writer.key("resolvedAfterReminders")
            writer.beginObject()
            for (index, name) in Self.reminderBuckets.enumerated() {
                writer.member(name, group.resolvedAfterReminders[index])
            }
            writer.endObject()
            writer.endObject()
        }
        writer.endArray()
        writer.key("byReason")
        writer.beginObject()
        for reason in byReason {
            writer.key(reason.reason)
            writer.beginObject()
            writer.member("episodes", reason.episodes)
            writer.member("resolved", reason.resolved)
            writer.endObject()
        }
        writer.endObject()
        writer.key("upliftVsHoldout")
        writer.beginObject()
        for (group, uplift) in upliftVsHoldout {
            writer.key(group)
            writer.value(Self.rounded(uplift))
        }
        writer.endObject()
        if let allocation {
            writer.key("allocation")
            Self.write(allocation, to: &writer)
        }
        if !bySendTime.isEmpty {
            writer.key("bySendTime")
            Self.write(bySendTime, to: &writer)
            writer.key("sendTimeUplift")
            writer.value(sendTimeUplift.map(Self.rounded) ?? .null)
        }
        writer.key("byChannel")
        Self.write(byChannel, to: &writer)
        writer.key("funnel")
        writer.beginObject()
        for named in funnel.byGroup { Self.write(named, to: &writer) }
        for (name, list) in [("byReason", funnel.byReason), ("byPlatform", funnel.byPlatform)] {
            writer.key(name)
            writer.beginObject()
            for named in list { Self.write(named, to: &writer) }
            writer.endObject()
        }
        writer.endObject()
        writer.key("byOpening")
        writer.beginObject()
        for named in funnel.byOpening {
            Self.writeRate(named.name, episodes: named.sum.episodes, resolved: named.sum.resolved, to: &writer)
        }
        writer.endObject()
        if let alwaysKept {
            writer.key("alwaysKept")
            writer.beginObject()
            writer.member("computedAt", RFC3339.format(alwaysKept.computedAt))
            Self.write(alwaysKept.overall, to: &writer)
            writer.key("byPlatform")
            writer.beginObject()
            for platform in alwaysKept.byPlatform {
                writer.key(platform.name)
                writer.beginObject()
                Self.write(platform.horizons, to: &writer)
                writer.endObject()
            }
            writer.endObject()
            writer.endObject()
        }
        writer.key("resolvedAfterAsk")
        writer.beginObject()
        for named in funnel.byGroup {
            writer.key(named.name)
            writer.beginObject()
            Self.writeRate("accepted", episodes: named.sum.accepted, resolved: named.sum.acceptedResolved, to: &writer)
            Self.writeRate(
                "notAccepted", episodes: named.sum.notAccepted, resolved: named.sum.notAcceptedResolved, to: &writer)
            writer.endObject()
        }
        writer.endObject()
        writer.endObject()
        return writer.bytes
    }

    private static func write(_ allocation: Allocation, to writer: inout JSONWriter) {
        writer.beginObject()
        writer.member("type", allocation.type)
        if let computedAt = allocation.computedAt {
            writer.member("computedAt", RFC3339.format(computedAt))
            writer.member("learned", allocation.learned)
        }
        writer.key("groups")
        writer.beginObject()
        for group in allocation.groups {
            writer.key(group.name)
            writer.beginObject()
            writer.key("weight")
            writer.value(Self.rounded(group.weight))
            if allocation.type == "adaptive" {
                writer.key("probabilityBest")
                writer.value(group.probabilityBest.map(Self.rounded) ?? .null)
                writer.member("successes", group.successes)
                writer.member("failures", group.failures)
            }
            writer.endObject()
        }
        writer.endObject()
        writer.endObject()
    }

    /// Rates to 4 decimal places: more would only show noise.
    static func rounded(_ value: Double) -> JSONValue { .double((value * 10_000).rounded() / 10_000) }

    /// Reads the daemon's answer (the client's side).
    public init(json: JSONValue) throws(ValidationError) {
        var reader = try AnswerReader(json)
        let since = try reader.date("since")
        let until = try reader.date("until")
        var groups: [Group] = []
        for (value, path) in try reader.array("groups", { value, path in (value, path) }) {
            var group = try AnswerReader(value, path: path)
            var times = try group.object("timeToFixSeconds")
            var after = try group.object("resolvedAfterReminders")
            var ci: ClosedRange<Double>?
            if case .array(let bounds)? = group.optionalValue("resolutionRateCI95"), bounds.count == 2,
                let low = bounds[0].number, let high = bounds[1].number, low <= high
            {
                ci = low...high
            }
            groups.append(
                Group(
                    group: try group.string("group"), episodes: try group.int("episodes"), open: try group.int("open"),
                    resolved: try group.int("resolved"), forgotten: try group.int("forgotten"),
                    resolutionRate: group.optionalValue("resolutionRate")?.number, resolutionRateCI95: ci,
                    timeToFixP50: times.optionalValue("p50")?.number, timeToFixP90: times.optionalValue("p90")?.number,
                    resolvedAfterReminders: try Self.reminderBuckets.map { name throws(ValidationError) in
                        try after.int(name)
                    }))
        }
        var reasons: [Reason] = []
        if case .object(let object)? = reader.optionalValue("byReason") {
            for (name, value) in object.members {
                var reason = try AnswerReader(value)
                reasons.append(
                    Reason(reason: name, episodes: try reason.int("episodes"), resolved: try reason.int("resolved")))
            }
        }
        var uplift: [(group: String, uplift: Double)] = []
        if case .object(let object)? = reader.optionalValue("upliftVsHoldout") {
            for (name, value) in object.members { if let number = value.number { uplift.append((name, number)) } }
        }
        self.init(since: since, until: until, groups: groups, byReason: reasons, upliftVsHoldout: uplift)
        if case .object(let object)? = reader.optionalValue("allocation") {
            var allocationReader = try AnswerReader(.object(object), path: "allocation")
            var members: [AllocationState.Group] = []
            if case .object(let groupsObject)? = allocationReader.optionalValue("groups") {
                for (name, value) in groupsObject.members {
                    guard case .object(let fields) = value else { continue }
                    members.append(
                        AllocationState.Group(
                            name: name, weight: fields["weight"]?.number ?? 0,
                            probabilityBest: fields["probabilityBest"]?.number,
                            successes: fields["successes"]?.number.map { Int($0) } ?? 0,
                            failures: fields["failures"]?.number.map { Int($0) } ?? 0))
                }
            }
            var computedAt: Date?
            if case .string(let text)? = allocationReader.optionalValue("computedAt") {
                computedAt = RFC3339.parse(text)
            }
            var learned = false
            if case .bool(let value)? = allocationReader.optionalValue("learned") { learned = value }
            allocation = Allocation(
                type: try allocationReader.string("type"), computedAt: computedAt, learned: learned, groups: members)
        }
        if case .object(let object)? = reader.optionalValue("funnel") {
            let after: JSONObject
            if case .object(let object)? = reader.optionalValue("resolvedAfterAsk") {
                after = object
            } else {
                after = [:]
            }
            var byGroup: [NamedFunnel] = []
            for (name, value) in object.members where name != "byReason" && name != "byPlatform" {
                byGroup.append(NamedFunnel(name: name, sum: Self.funnel(value, resolvedAfterAsk: after[name])))
            }
            func list(_ key: String) -> [NamedFunnel] {
                guard case .object(let members)? = object[key] else { return [] }
                return members.members.map {
                    NamedFunnel(name: $0.key, sum: Self.funnel($0.value, resolvedAfterAsk: nil))
                }
            }
            funnel = Funnel(byGroup: byGroup, byReason: list("byReason"), byPlatform: list("byPlatform"))
            if case .object(let openings)? = reader.optionalValue("byOpening") {
                funnel.byOpening = openings.members.map { name, value in
                    guard case .object(let fields) = value else {
                        return NamedFunnel(name: name, sum: FunnelAggregate())
                    }
                    let episodes = fields["episodes"]?.number.map { Int($0) } ?? 0
                    let resolved = fields["resolved"]?.number.map { Int($0) } ?? 0
                    var stored = [Int](repeating: 0, count: FunnelAggregate.steps.count + 5)
                    (stored[0], stored[stored.count - 1]) = (episodes, resolved)
                    return NamedFunnel(name: name, sum: FunnelAggregate(stored: stored) ?? FunnelAggregate())
                }
            }
        }
        if case .object(let object)? = reader.optionalValue("alwaysKept"),
            case .string(let text)? = object["computedAt"],
            let computedAt = RFC3339.parse(text)
        {
            func horizons(_ fields: JSONObject) -> [AlwaysKeptReport.Horizon] {
                AlwaysKeptTally.horizons.map { days in
                    guard case .object(let horizon)? = fields[String(days)] else {
                        return AlwaysKeptReport.Horizon(days: days, users: 0, kept: 0)
                    }
                    return AlwaysKeptReport.Horizon(
                        days: days, users: horizon["users"]?.number.map { Int($0) } ?? 0,
                        kept: horizon["kept"]?.number.map { Int($0) } ?? 0)
                }
            }
            var platforms: [AlwaysKeptReport.Platform] = []
            if case .object(let byPlatform)? = object["byPlatform"] {
                for (name, value) in byPlatform.members {
                    guard case .object(let fields) = value else { continue }
                    platforms.append(AlwaysKeptReport.Platform(name: name, horizons: horizons(fields)))
                }
            }
            alwaysKept = AlwaysKeptReport(computedAt: computedAt, overall: horizons(object), byPlatform: platforms)
        }
        bySendTime = Self.resolutions(reader.optionalValue("bySendTime"))
        byChannel = Self.resolutions(reader.optionalValue("byChannel"))
    }
}

extension JSONValue {
    var number: Double? {
        switch self {
        case .int(let value): Double(value)
        case .double(let value): value
        default: nil
        }
    }
}
