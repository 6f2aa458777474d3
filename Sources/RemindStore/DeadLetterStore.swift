import Foundation
import RemindCore

/// Events the sinks gave up on, kept until an operator replays them. `MemoryStateStore` is the
/// reference reading.
///
/// Implementation requirements: `deadLetter` is durable before it returns, and takes the event
/// out of the sink's queue in the same step (the dispatcher completes nothing after it): a
/// replay right after it finds the event gone and queues it again. Stored first and completed
/// after, a replay in between was undone by the completion and the event lost. A letter stored
/// again is replaced, never doubled. `replayDeadLetters` moves letters back into
/// their sinks' queues durably, behind the events already waiting, and a letter replayed is no
/// longer listed.
public protocol DeadLetterStore: Sendable {
    /// Events still waiting for `sink`.
    func pendingEvents(for sink: String) async -> Int
    /// Records an event a sink gave up on, durably, and takes it out of the sink's queue.
    func deadLetter(_ letter: DeadLetterRecord) async throws
    /// Events sinks gave up on, oldest first.
    func deadLetters() async -> [DeadLetterRecord]
    /// Puts dead letters back in their sinks' queues: all, or those whose event id is in `ids`.
    /// Returns how many went back.
    func replayDeadLetters(ids: Set<String>?) async throws -> Int
}
