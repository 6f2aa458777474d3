import Foundation
import RemindCore

/// What the daemon learns from outcomes and reports (docs/outcomes.md "Adaptive allocation",
/// docs/configuration.md `notification.sendTime`) and where it keeps it. `MemoryStateStore` is
/// the reference reading.
///
/// Implementation requirements:
/// - **One allocation for everyone.** `storeAllocation` keeps the given state only when none
///   computed at the same time or later is stored, and returns the state in force afterwards:
///   every instance sharing the backend then uses the same weights, whoever computed first.
/// - **Durable.** A stored allocation survives a crash (a file written whole with `fsync`, or a
///   committed row).
public protocol LearningStore: Sendable {
    /// The allocation last stored; nil before any.
    func allocation() async throws -> AllocationState?
    /// Stores `state` unless one computed at or after `state.computedAt` is stored; returns the
    /// state in force.
    func storeAllocation(_ state: AllocationState) async throws -> AllocationState
    /// Users by their most active hour of day (24 counts): the population's active hour.
    func usersByActiveHour() async -> [Int]
}

/// The allocation as a small file in a state directory, replaced whole and synced, so a crash
/// leaves the old state or the new one.
struct AllocationFile: Sendable {
    static let name = "allocation.json"
    let directory: String

    var path: String { directory + "/" + Self.name }

    func read() throws -> AllocationState? {
        guard let bytes = try FileIO.read(path) else { return nil }
        return try AllocationState(json: bytes)
    }

    func store(_ state: AllocationState) throws -> AllocationState {
        if let current = try? read(), current.computedAt >= state.computedAt { return current }
        try FileIO.replaceFile(path, with: state.jsonBytes, temporaryPath: path + ".tmp", durable: true)
        try FileIO.fsyncDirectory(directory)
        return state
    }
}

extension FileStateStore: LearningStore {
    // A file of a few hundred bytes written twice a day: written here, not on the I/O pool.
    public func allocation() async throws -> AllocationState? {
        try AllocationFile(directory: directory).read()
    }

    public func storeAllocation(_ state: AllocationState) async throws -> AllocationState {
        try AllocationFile(directory: directory).store(state)
    }

    public func usersByActiveHour() async -> [Int] { schedules.table.usersByActiveHour() }
}

extension PartitionedStore: LearningStore where Part == FileStateStore {
    /// One file in the top directory: the allocation is the whole daemon's, not a part's.
    public func allocation() async throws -> AllocationState? {
        try AllocationFile(directory: topDirectory).read()
    }

    public func storeAllocation(_ state: AllocationState) async throws -> AllocationState {
        try AllocationFile(directory: topDirectory).store(state)
    }

    public func usersByActiveHour() async -> [Int] {
        var total = [Int](repeating: 0, count: 24)
        for part in parts {
            let counts = await part.usersByActiveHour()
            for hour in 0..<24 { total[hour] += counts[hour] }
        }
        return total
    }
}
