/// One configured service (`services.<name>` in the configuration, docs/configuration.md): the conditions
/// it cannot run without and those without which it runs degraded.
public struct ServiceDefinition: Sendable, Equatable {
    /// `[a-z0-9_-]{1,64}`: it becomes a metric label and a JSON key.
    public var name: String
    /// Never empty.
    public var requires: [ServiceCondition]
    public var optional: [ServiceCondition]

    public init(name: String, requires: [ServiceCondition], optional: [ServiceCondition] = []) {
        self.name = name
        self.requires = requires
        self.optional = optional
    }

    /// Whether `name` is a valid service name.
    public static func isValidName(_ name: String) -> Bool {
        (1...64).contains(name.utf8.count)
            && name.utf8.allSatisfy {
                (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x5F || $0 == 0x2D
            }
    }

    /// The service's state for a user whose `conditions` hold.
    public func status(_ conditions: ServiceConditions) -> ServiceStatus {
        let mine = Set(requires + optional)
        let missing = ServiceCondition.allCases.filter { mine.contains($0) && !conditions.contains($0) }
        let state: ServiceState =
            requires.contains(where: { !conditions.contains($0) })
            ? .permissionMissing : missing.isEmpty ? .active : .degraded
        return ServiceStatus(state: state, missing: missing)
    }

    /// Users per state, from the users counted per combination of conditions.
    public func counts(_ users: ConditionCounts) -> [ServiceState: Int] {
        var counts: [ServiceState: Int] = [.active: 0, .degraded: 0, .permissionMissing: 0]
        for combination in 0..<ServiceConditions.combinations {
            let count = users[ServiceConditions(rawValue: UInt8(combination))]
            if count > 0 { counts[status(ServiceConditions(rawValue: UInt8(combination))).state, default: 0] += count }
        }
        return counts
    }
}

/// MOVE's service states.
public enum ServiceState: String, Sendable, CaseIterable {
    /// Every condition holds.
    case active
    /// Only optional conditions are missing.
    case degraded
    /// A required condition is missing: the service cannot run.
    case permissionMissing
}

/// One service's state for one user.
public struct ServiceStatus: Sendable, Equatable {
    public var state: ServiceState
    /// Every condition of the service, required or optional, that does not hold.
    public var missing: [ServiceCondition]

    public init(state: ServiceState, missing: [ServiceCondition]) {
        self.state = state
        self.missing = missing
    }
}

/// Users counted per combination of the conditions that hold for them; kept current by the
/// store as records change.
public struct ConditionCounts: Sendable, Equatable {
    private var counts = [Int](repeating: 0, count: ServiceConditions.combinations)

    public init() {}

    public subscript(conditions: ServiceConditions) -> Int {
        get { counts[Int(conditions.rawValue)] }
        set { counts[Int(conditions.rawValue)] = newValue }
    }

    public var total: Int { counts.reduce(0, +) }

    /// Adds another set of counts (of other users) to these.
    public mutating func add(_ other: ConditionCounts) {
        for index in counts.indices { counts[index] += other.counts[index] }
    }
}
