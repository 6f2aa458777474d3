import RemindCore

/// The funnel's, `resolvedAfterAsk`'s, `byOpening`'s, `byChannel`'s and `alwaysKept`'s parts of `GET /v1/stats`
/// on the wire (docs/outcomes.md "The funnel", "Always kept"), written and read back beside the
/// rest in `StatsReport+JSON.swift`.
extension StatsReport {
    /// One funnel: each step's count, and from the second on its rate of the step before with
    /// its Wilson interval.
    static func write(_ named: NamedFunnel, to writer: inout JSONWriter) {
        writer.key(named.name)
        writer.beginObject()
        for (index, step) in FunnelAggregate.steps.enumerated() {
            writer.key(step)
            writer.beginObject()
            let count = named.sum.reached[index]
            writer.member("count", count)
            if index > 0 {
                let previous = named.sum.reached[index - 1]
                writer.key("rate")
                writer.value(previous > 0 ? rounded(Double(count) / Double(previous)) : .null)
                writer.key("rateCI95")
                writer.value(interval(successes: count, trials: previous))
            }
            writer.endObject()
        }
        writer.endObject()
    }

    /// `"7":{"users","kept","rate","rateCI95"}` per horizon.
    static func write(_ horizons: [AlwaysKeptReport.Horizon], to writer: inout JSONWriter) {
        for horizon in horizons {
            writer.key(String(horizon.days))
            writer.beginObject()
            writer.member("users", horizon.users)
            writer.member("kept", horizon.kept)
            writer.key("rate")
            writer.value(horizon.rate.map(rounded) ?? .null)
            writer.key("rateCI95")
            writer.value(interval(successes: horizon.kept, trials: horizon.users))
            writer.endObject()
        }
    }

    /// `<name>:{"episodes","resolved","rate","rateCI95"}`; the rate's keys are `rateKey` and
    /// `rateKey` + `CI95`.
    static func writeRate(
        _ name: String, episodes: Int, resolved: Int, rateKey: String = "rate", to writer: inout JSONWriter
    ) {
        writer.key(name)
        writer.beginObject()
        writer.member("episodes", episodes)
        writer.member("resolved", resolved)
        writer.key(rateKey)
        writer.value(episodes > 0 ? rounded(Double(resolved) / Double(episodes)) : .null)
        writer.key(rateKey + "CI95")
        writer.value(interval(successes: resolved, trials: episodes))
        writer.endObject()
    }

    /// `{<name>:{"episodes","resolved","resolutionRate","resolutionRateCI95"}}`: `bySendTime`
    /// and `byChannel`.
    static func write(_ resolutions: [NamedResolution], to writer: inout JSONWriter) {
        writer.beginObject()
        for resolution in resolutions {
            writeRate(
                resolution.name, episodes: resolution.episodes, resolved: resolution.resolved,
                rateKey: "resolutionRate", to: &writer)
        }
        writer.endObject()
    }

    /// What `write(_ resolutions:)` wrote, read back; empty when absent.
    static func resolutions(_ value: JSONValue?) -> [NamedResolution] {
        guard case .object(let object)? = value else { return [] }
        return object.members.compactMap { name, value in
            guard case .object(let fields) = value else { return nil }
            return NamedResolution(
                name: name, episodes: fields["episodes"]?.number.map { Int($0) } ?? 0,
                resolved: fields["resolved"]?.number.map { Int($0) } ?? 0)
        }
    }

    static func interval(successes: Int, trials: Int) -> JSONValue {
        wilson(successes: successes, trials: trials).map { .array([rounded($0.lowerBound), rounded($0.upperBound)]) }
            ?? .null
    }

    /// A funnel read back from its steps' counts (and its `resolvedAfterAsk` entry); an empty
    /// one when they do not make one.
    static func funnel(_ value: JSONValue, resolvedAfterAsk: JSONValue?) -> FunnelAggregate {
        guard case .object(let steps) = value else { return FunnelAggregate() }
        let reached = FunnelAggregate.steps.map { step -> Int in
            guard case .object(let fields)? = steps[step] else { return 0 }
            return fields["count"]?.number.map { Int($0) } ?? 0
        }
        var afterAsk = [0, 0, 0, 0]
        if case .object(let after)? = resolvedAfterAsk {
            for (offset, name) in ["accepted", "notAccepted"].enumerated() {
                guard case .object(let fields)? = after[name] else { continue }
                afterAsk[offset * 2] = fields["episodes"]?.number.map { Int($0) } ?? 0
                afterAsk[offset * 2 + 1] = fields["resolved"]?.number.map { Int($0) } ?? 0
            }
        }
        // The funnel on the wire has no total of resolved episodes (`byOpening` has): the ordered
        // funnel's last step is the most that can be said of it.
        return FunnelAggregate(stored: reached + afterAsk + [reached[reached.count - 1]]) ?? FunnelAggregate()
    }
}
