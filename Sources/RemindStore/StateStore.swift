import Foundation
import RemindCore

/// The durable state of every user, their schedule and the events waiting for the sinks: the
/// plug point for storage (ARCHITECTURE.md), made of the separate contracts of its parts —
/// `UserStore` (records, the schedule and the transactions the policy runs in), `OutboxSource`
/// (events for the sinks), `DeadLetterStore`, `PushDirectory` and `StatisticsSource`.
/// `FileStateStore` (the state directory's JSON files behind a write-ahead log) is the default
/// backend, `PostgresStateStore` the shared one; `MemoryStateStore` is the smallest reading of
/// the contract, for tests. The daemon, the scheduler and the sinks' dispatchers see only this.
///
/// Implementation requirements, beyond those of the parts:
/// - **The outbox** hands each sink its events in creation order, never two of one user at
///   once. `complete` may become durable lazily: losing it in a crash only means the event is
///   delivered again, with the same id. An event leaves a sink's queue only by `complete`
///   (delivered, or dead-lettered first).
/// - **Devices**: a user's push address is the one their newest acknowledged report left;
///   `markUnreachable` is a change like a report (durable before it returns, ordered with the
///   user's reports), applied only while the address is still the dead token.
/// - **Recovery.** A store opened after a crash holds exactly the acknowledged state: every
///   acknowledged write, and of the unacknowledged ones each either whole or not at all.
/// - `checkpoint(snapshot:)` moves what is held only in memory or in a log to its final place
///   (a backend that writes through does nothing); `close` ends the store after a last one.
public protocol StateStore: UserStore, OutboxSource, DeadLetterStore, PushDirectory, StatisticsSource {
    /// Moves what is held only in memory or a log to its final place; with `snapshot`, also
    /// whatever makes the next start fast.
    func checkpoint(snapshot: Bool) async throws
    /// Ends the store after a last checkpoint.
    func close() async
}
