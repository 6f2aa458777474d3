import Foundation
import PostgresNIO
import RemindCore
import RemindStore

/// `DeadLetterStore` on PostgreSQL: the letters in `remindd_dead_letters`, each taken out of its
/// sink's queue in the transaction that stores it, and replayed behind the events waiting.
extension PostgresStateStore {
    public func pendingEvents(for sink: String) async -> Int {
        (try? await database {
            var count = 0
            for try await value in try await self.client.query(
                "SELECT count(*) FROM remindd_outbox WHERE sink = \(sink)", logger: self.logger
            ).decode(Int.self) {
                count = value
            }
            return count
        }) ?? 0
    }

    /// The letter and the event's row for its sink go in one transaction: a replay after it
    /// finds the row gone and inserts it again (deleted by the dispatcher's completion after the
    /// replay, the event would be lost).
    public func deadLetter(_ letter: DeadLetterRecord) async throws {
        let record = String(decoding: letter.jsonBytes, as: UTF8.self)
        let (id, sink) = (letter.event.id, letter.sink)
        let finished = try await transaction { connection -> Bool in
            try await connection.query(
                """
                INSERT INTO remindd_dead_letters (event_id, sink, record) VALUES (\(id), \(sink), \(record))
                ON CONFLICT (event_id, sink) DO UPDATE SET record = EXCLUDED.record
                """, logger: self.logger)
            var deleted = false
            for try await _ in try await connection.query(
                "DELETE FROM remindd_outbox WHERE event_id = \(id) AND sink = \(sink) RETURNING seq",
                logger: self.logger)
            { deleted = true }
            guard deleted else { return false }
            for try await left in try await connection.query(
                "SELECT count(*)::int8 FROM remindd_outbox WHERE event_id = \(id)", logger: self.logger
            ).decode(Int.self) { return left == 0 }
            return false
        }
        state.withLock {
            if finished { $0.delivered += 1 }
            $0.statistics = nil
            stopHolding([HeldEvent(eventID: id, sink: sink)], deleted: true, in: &$0)
        }
        outboxSignals[sink]?.signal()
    }

    public func deadLetters() async -> [DeadLetterRecord] {
        do {
            return try await database {
                var letters: [DeadLetterRecord] = []
                for try await text in try await self.client.query(
                    "SELECT record FROM remindd_dead_letters ORDER BY seq", logger: self.logger
                ).decode(String.self) {
                    if let letter = DeadLetterRecord(json: Array(text.utf8)) { letters.append(letter) }
                }
                return letters
            }
        } catch {
            logger.error("reading dead letters: \(error)")
            return []
        }
    }

    /// Moves letters back into their sinks' queues in one transaction, behind the events
    /// already waiting.
    public func replayDeadLetters(ids: Set<String>?) async throws -> Int {
        let chosen = ids.map { Array($0) }
        let count = try await transaction { connection -> Int in
            let rows =
                if let chosen {
                    try await connection.query(
                        "DELETE FROM remindd_dead_letters WHERE event_id = ANY(\(chosen)) RETURNING record",
                        logger: self.logger)
                } else {
                    try await connection.query("DELETE FROM remindd_dead_letters RETURNING record", logger: self.logger)
                }
            var letters: [DeadLetterRecord] = []
            for try await text in rows.decode(String.self) {
                if let letter = DeadLetterRecord(json: Array(text.utf8)) { letters.append(letter) }
            }
            for letter in letters.sorted(by: { $0.deadLetteredAt < $1.deadLetteredAt }) {
                try await connection.query(
                    """
                    INSERT INTO remindd_outbox (event_id, sink, user_id, event)
                    VALUES (\(letter.event.id), \(letter.sink), \(letter.event.userID.rawValue), \(letter.event.json))
                    ON CONFLICT (event_id, sink) DO NOTHING
                    """, logger: self.logger)
            }
            if !letters.isEmpty { try await self.notify(wake: false, events: true, on: connection) }
            return letters.count
        }
        if count > 0 { changed(wakeEarlier: false, events: true) }
        return count
    }
}
