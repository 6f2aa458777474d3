import Foundation
import RemindCore
import RemindStore

extension PostgresStateStore {
    /// Instances share the database: a user's record may change in another one.
    public var isSoleWriter: Bool { false }

    /// Folds repeats in, in one transaction. The daemon answers no repeat from memory on
    /// PostgreSQL (`isSoleWriter`), so this only keeps the contract.
    public func noteRepeats(_ repeats: [LoggedRepeats]) async throws {
        guard !repeats.isEmpty else { return }
        let (policy, started) = (self.policy, daemonStartedAt)
        let userIDs = Array(Set(repeats.map(\.userID))).sorted()
        try await transaction { connection in
            try await self.lockUsers(userIDs, on: connection)
            var rows = try await self.lockedRows(userIDs, on: connection)
            let before = rows
            for logged in repeats { rows[logged.userID]?.record.fold(logged) }
            try await self.write(
                rows.values.map {
                    ($0.record, ScheduleColumns($0.record.schedule, policy: policy, daemonStartedAt: started))
                },
                before: before, on: connection)
        }
    }
}
