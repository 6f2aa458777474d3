import RemindCore
import RemindSinks

/// One push service's side of a push sink: how an event becomes a request to APNs or FCM,
/// and what the answer means. `PushSink` does the rest, the same for both.
///
/// Requirements: `send` makes one request (plus at most one immediate retry after renewing
/// an expired credential) and returns `.delivered` for an accepted push, `.deadToken` when the
/// service says the address will never work again, and throws a `SinkError` otherwise:
/// `retryable` for what may pass (429, 5xx, timeouts, connection errors, with `retryAfter`
/// from the answer), not retryable for a refusal that will not change. Error messages name
/// the service and the answer, never the device token or a credential.
protocol PushTransport: Sendable {
    var service: PushService { get }
    func send(_ event: SinkEvent, eventID: String, to address: PushAddress) async throws(SinkError) -> PushAnswer
}

enum PushAnswer: Sendable, Equatable {
    case delivered
    /// The service's reason as given (`Unregistered`, `BadDeviceToken`, `UNREGISTERED`, …).
    case deadToken(reason: String)
}
