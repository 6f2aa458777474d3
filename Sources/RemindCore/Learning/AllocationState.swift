import Foundation

/// The allocation in force and what it was computed from: durable (a small file in the state
/// directory, or a row in PostgreSQL) and shown by `/v1/stats` as `allocation`.
public struct AllocationState: Sendable, Equatable {
    public struct Group: Sendable, Equatable {
        public var name: String
        public var weight: Double
        /// The share of draws in which this group's posterior was the best; nil while the
        /// configured weights apply.
        public var probabilityBest: Double?
        public var successes: Int
        public var failures: Int

        public init(name: String, weight: Double, probabilityBest: Double?, successes: Int, failures: Int) {
            self.name = name
            self.weight = weight
            self.probabilityBest = probabilityBest
            self.successes = successes
            self.failures = failures
        }
    }

    public var computedAt: Date
    /// Whether the weights are learned; false while a group has fewer decided episodes than
    /// `minEpisodes` and the configured weights apply.
    public var learned: Bool
    /// `default` and the variants in configuration order (the holdout is not among them).
    public var groups: [Group]

    public init(computedAt: Date, learned: Bool, groups: [Group]) {
        self.computedAt = computedAt
        self.learned = learned
        self.groups = groups
    }

    /// The weights by group name, for `Experiment.weightsInForce`.
    public var weights: [String: Double] {
        Dictionary(groups.map { ($0.name, $0.weight) }, uniquingKeysWith: { first, _ in first })
    }

    /// `{"computedAt":…,"learned":…,"groups":{"default":{"weight":…,"probabilityBest":…,
    /// "successes":…,"failures":…},…}}`: the durable form, also what `/v1/stats` shows inside
    /// `allocation`.
    public var jsonBytes: [UInt8] {
        var writer = JSONWriter(reservingCapacity: 256)
        write(to: &writer)
        return writer.bytes
    }

    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.member("computedAt", RFC3339.format(computedAt))
        writer.member("learned", learned)
        writer.key("groups")
        writer.beginObject()
        for group in groups {
            writer.key(group.name)
            writer.beginObject()
            writer.key("weight")
            writer.double(group.weight)
            if let best = group.probabilityBest {
                writer.key("probabilityBest")
                writer.double(best)
            }
            writer.member("successes", group.successes)
            writer.member("failures", group.failures)
            writer.endObject()
        }
        writer.endObject()
        writer.endObject()
    }

    public init(json bytes: some Collection<UInt8>) throws(ValidationError) {
        guard case .object(let object)? = try? JSONParser.parse(bytes) else {
            throw ValidationError(field: "allocation", reason: "is not a JSON object")
        }
        var reader = JSONObjectReader(object, path: "allocation")
        guard let computedAt = try reader.string("computedAt").flatMap(RFC3339.parse) else {
            throw ValidationError(field: "allocation.computedAt", reason: "must be an RFC 3339 timestamp")
        }
        var groups: [Group] = []
        for (name, value) in (try reader.object("groups"))?.members ?? [] {
            guard case .object(let groupObject) = value else {
                throw ValidationError(field: "allocation.groups.\(name)", reason: "must be an object")
            }
            var group = JSONObjectReader(groupObject, path: "allocation.groups.\(name)")
            groups.append(
                Group(
                    name: name, weight: try group.number("weight") ?? 0,
                    probabilityBest: try group.number("probabilityBest"),
                    successes: Int(try group.integer("successes", in: 0...Int64.max) ?? 0),
                    failures: Int(try group.integer("failures", in: 0...Int64.max) ?? 0)))
        }
        self.init(computedAt: computedAt, learned: try reader.bool("learned") ?? false, groups: groups)
    }
}
