import Foundation

/// Where the push sinks (docs/push.md) look up a user's device and report a dead one. Declared
/// here, like `OutboxSource`, because both sides use it: every `StateStore` is one
/// (RemindStore), and the `apns` and `fcm` sinks read one (RemindPush).
///
/// Implementation requirements:
/// - `pushAddress` answers the address the newest acknowledged report left (nil: none, or
///   no such user), with its reachability.
/// - `markUnreachable` records the service's verdict durably before it returns, and only
///   while the user's address is still `token`: a report that brought a new token meanwhile
///   wins, so a dead old token never silences a live new one. It changes nothing for an
///   unknown user or a different token, and a repeated verdict keeps the first `since`.
/// - `reroute` hands a reminder the push sink cannot deliver (the user's address is
///   unreachable) to the fallback sinks (docs/fallback.md), as `ReminderPolicy.reroute`
///   decides, and returns once that is durable: the reminder's delivery on the fallback
///   channel and the event in the fallback sinks' queues, together. It changes nothing when
///   the policy says so (`RerouteResult`), and nothing twice for one reminder.
public protocol PushDirectory: Sendable {
    func pushAddress(for userID: UserID) async throws -> PushAddress?
    func markUnreachable(_ userID: UserID, token: String, reason: String, at date: Date) async throws
    func reroute(_ reminder: SinkEvent.Reminder) async throws -> RerouteResult
}

extension DeviceState {
    /// Applies a push service's verdict that `token` is dead; false when it changed nothing
    /// (another token now, or already unreachable).
    @discardableResult
    public mutating func markUnreachable(token: String, reason: String, at date: Date) -> Bool {
        guard var push, push.token == token, push.unreachable == nil else { return false }
        push.unreachable = .init(reason: reason, since: date)
        self.push = push
        return true
    }
}
