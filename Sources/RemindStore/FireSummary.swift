import Foundation
import RemindCore

/// What one pass of `StateStore.fireDue` did.
public struct FireSummary: Sendable, Equatable {
    /// Users whose record changed.
    public var users = 0
    /// The events produced, already durable and in the outbox.
    public var events: [OutboxEvent] = []
    /// Users whose reminder was suppressed (notifications off).
    public var suppressed: [UserID] = []

    public init(users: Int = 0, events: [OutboxEvent] = [], suppressed: [UserID] = []) {
        self.users = users
        self.events = events
        self.suppressed = suppressed
    }

    /// What a persisted pass did.
    public init(_ pass: FirePass) {
        self.init(users: pass.fired.count, events: pass.events, suppressed: pass.suppressed)
    }
}
