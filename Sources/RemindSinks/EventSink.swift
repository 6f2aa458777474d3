import RemindCore

/// A destination for remindd's events: the plug point for sinks (docs/configuration.md "Sinks in detail").
///
/// Implementation requirements:
/// - `deliver` returns only once the event is delivered in the sink's own sense (a file
///   sink: written and fsync'd; a webhook: answered 2xx), or once the sink decided the event
///   is not for it (`skipped`: a push sink and a user without a device). Either way the
///   dispatcher then acknowledges it and it leaves the outbox for this sink; a skip is neither
///   a delivery nor a failure, and never a dead letter.
/// - It throws a `SinkError` for a failed attempt: `retryable` ones are tried again with
///   backoff, others go to the dead letters at once.
/// - It may be called again with the same event (at-least-once: a crash between delivery
///   and acknowledgement redelivers); the event's `id` lets receivers de-duplicate.
/// - It may be called concurrently, up to the sink's `maxConcurrency` deliveries at once (a
///   webhook's receiver takes many requests in parallel; a file sink group-commits them), but
///   never with two events of the same user at once, and each user's events come in outbox
///   order: a withdraw never overtakes the reminder it withdraws.
/// - The bytes to send are `event.bytes`, unchanged: every sink sends the same JSON.
public protocol EventSink: Sendable {
    /// The sink's name from the configuration, for logs, metrics and the outbox.
    var name: String { get }
    /// The sink's type (`journal`, `file`, …), for status.
    var type: String { get }
    func deliver(_ event: OutboxEvent) async throws(SinkError) -> SinkOutcome
}

/// How a delivery that did not fail ended.
public enum SinkOutcome: Sendable, Equatable {
    case delivered
    /// Done for this sink without sending, for `reason` (e.g. `no_token`, `unreachable`,
    /// `budget`): not retried, not failed, not a dead letter.
    case skipped(reason: String)
}

/// A failed delivery attempt.
public struct SinkError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String
    /// Worth trying again (a timeout, a 5xx); false for a rejection that will not change.
    public var retryable: Bool
    /// The receiver's own wait request (`Retry-After`), honoured instead of the backoff.
    public var retryAfter: Double?

    public init(_ message: String, retryable: Bool = true, retryAfter: Double? = nil) {
        self.message = message
        self.retryable = retryable
        self.retryAfter = retryAfter
    }

    public var description: String { message }
}
