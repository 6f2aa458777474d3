import Foundation
import PostgresNIO
import RemindCore
import RemindStore

/// The allocation as one row of `remindd_meta` (key `allocation`, the state's JSON), so every
/// instance sharing the database uses the weights the first of them stored for a recompute
/// time; and the population's active hour counted from the users' documents.
extension PostgresStateStore: LearningStore {
    public func allocation() async throws -> AllocationState? {
        try await database {
            var stored: AllocationState?
            for try await value in try await self.client.query(
                "SELECT value FROM remindd_meta WHERE key = 'allocation'", logger: self.logger
            ).decode(String.self) {
                stored = try AllocationState(json: Array(value.utf8))
            }
            return stored
        }
    }

    public func storeAllocation(_ state: AllocationState) async throws -> AllocationState {
        let text = String(decoding: state.jsonBytes, as: UTF8.self)
        let computedAt = state.computedAt
        return try await transaction { connection in
            // Only a newer recompute replaces the row: an instance that computed the same slot
            // a moment later adopts the stored weights instead of its own.
            try await connection.query(
                """
                INSERT INTO remindd_meta (key, value) VALUES ('allocation', \(text))
                ON CONFLICT (key) DO UPDATE SET value = excluded.value
                WHERE (remindd_meta.value::jsonb ->> 'computedAt')::timestamptz < \(computedAt)
                """, logger: self.logger)
            var stored = state
            for try await value in try await connection.query(
                "SELECT value FROM remindd_meta WHERE key = 'allocation'", logger: self.logger
            ).decode(String.self) {
                stored = try AllocationState(json: Array(value.utf8))
            }
            return stored
        }
    }

    /// The `active_hour:N` counter rows, which every change keeps current (`CounterDeltas`):
    /// 24 sums, cheap enough to read every minute.
    public func usersByActiveHour() async -> [Int] {
        do {
            return try await database {
                var counts = [Int](repeating: 0, count: 24)
                let prefix = CounterDeltas.activeHourPrefix
                for try await (name, users) in try await self.client.query(
                    """
                    SELECT name, sum(value)::int8 FROM remindd_counters
                    WHERE starts_with(name, \(prefix)) GROUP BY name
                    """, logger: self.logger
                ).decode((String, Int).self) {
                    guard let hour = Int(name.dropFirst(prefix.count)), (0..<24).contains(hour) else { continue }
                    counts[hour] = max(0, users)
                }
                return counts
            }
        } catch {
            logger.error("counting users by active hour: \(error)")
            return [Int](repeating: 0, count: 24)
        }
    }
}
