import Foundation
import RemindCore

/// An event still waiting in the outbox, with the sinks that have not acknowledged it yet.
public struct PendingEvent: Sendable, Equatable {
    public var event: OutboxEvent
    public var sinks: [String]

    public init(event: OutboxEvent, sinks: [String]) {
        self.event = event
        self.sinks = sinks.sorted()
    }
}

/// A page of what a store exports, and where the next one starts (nil after the last).
public struct ExportPage<Item: Sendable>: Sendable {
    public var items: [Item]
    public var next: String?

    public init(items: [Item], next: String?) {
        self.items = items
        self.next = next
    }
}

/// A store's whole state read and written as it is, for `remindd migrate` (docs/operations.md):
/// the same state in another backend, or in another division of the state directory.
/// `MemoryStateStore` is the reference reading.
///
/// Implementation requirements:
/// - Both sides are stores no daemon uses meanwhile (the migration made sure): nothing is
///   claimed, fired or acknowledged while they are read or written.
/// - **Reading** changes nothing, a page at a time: each call returns up to `limit` items after
///   `cursor` (from the start when nil) and the cursor of the next page (nil after the last),
///   an opaque text that only the same store understands. `exportEvents` pages through every
///   pending event in creation order with the sinks it still waits for (one event may come in
///   two pages, with some of its sinks in each); `exportOutcomes` through every closed episode
///   (the outcomes log), in an order that is the same each time the same state is read.
/// - **Writing** is durable when the method returns, and idempotent, so that a migration cut
///   off anywhere can be run again over what it wrote: `importUsers` stores records exactly as
///   given (revision, history, episodes, deliveries, device and counters: no policy runs, no
///   event or outcome follows), replacing any of the same ID; `importEvents` adds events with
///   their ids for the sinks named, after those already there, and an event already pending
///   for a sink is not added again; `importOutcomes` adds the closed episodes the store does
///   not hold yet (an episode is its user, start and close).
/// - **The marker** is a note the migration leaves in the target while it runs (nil: none),
///   durable when set, so that a daemon does not start on a half-copied state and `--resume`
///   knows what it resumes.
public protocol StateTransfer: StateStore {
    func exportEvents(after cursor: String?, limit: Int) async throws -> ExportPage<PendingEvent>
    func exportOutcomes(after cursor: String?, limit: Int) async throws -> ExportPage<EpisodeOutcome>

    func importUsers(_ records: [UserRecord]) async throws
    func importEvents(_ events: [PendingEvent]) async throws
    func importOutcomes(_ outcomes: [EpisodeOutcome]) async throws

    func migrationMarker() async throws -> String?
    func setMigrationMarker(_ marker: String?) async throws
}
