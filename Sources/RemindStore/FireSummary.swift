import Foundation
import RemindCore

/// What one pass of `StateStore.fireDue` did.
public struct FireSummary: Sendable, Equatable {
    /// Users whose record changed, each once: whatever keeps a copy of a record drops theirs.
    public var changed: [UserID] = []
    /// The events produced, already durable and in the outbox.
    public var events: [OutboxEvent] = []
    /// Users whose reminder was suppressed (notifications off).
    public var suppressed: [UserID] = []

    public init(changed: [UserID] = [], events: [OutboxEvent] = [], suppressed: [UserID] = []) {
        self.changed = changed
        self.events = events
        self.suppressed = suppressed
    }

    /// What a persisted pass did.
    public init(_ pass: FirePass) {
        self.init(changed: pass.fired.map(\.change.userID), events: pass.events, suppressed: pass.suppressed)
    }

    /// How many users' records changed.
    public var users: Int { changed.count }
}
