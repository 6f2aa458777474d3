import Foundation
import RemindCore

/// Events the sinks gave up on, kept until an operator replays them. `MemoryStateStore` is the
/// reference reading.
///
/// Implementation requirements: `deadLetter` is durable before it returns, and takes the event
/// out of the sink's queue in the same step (the dispatcher's `complete` that follows finds
/// nothing to do): a replay right after it, before the dispatcher's completion, must find the
/// event gone and queue it again, not find it still queued and lose it to that completion. A
/// letter stored again is replaced, never doubled. `replayDeadLetters` moves letters back into
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
