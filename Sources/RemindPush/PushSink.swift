import Foundation
import RemindCore
import RemindSinks

/// A sink that puts events on users' phones through a push service (docs/push.md): the `apns`
/// and `fcm` sinks are this with their `PushTransport`.
///
/// For each event it looks up the user's current address in the `PushDirectory`: a user with
/// no address for this service is skipped (`no_token`), one whose token the service called
/// dead is skipped (`unreachable`) until a report brings another, and a heartbeat over the
/// user's background-push budget is skipped (`budget`). A dead-token answer marks the user
/// unreachable (durably, before the event is given up) and dead-letters the event with the
/// service's reason. With a sink of role `fallback` configured (docs/fallback.md), a reminder
/// for an unreachable user goes to the fallback sinks instead (`PushDirectory.reroute`,
/// durable before this sink is done with it) and is skipped here (`fallback`).
public struct PushSink: EventSink {
    public let name: String
    public let type: String
    public let metrics: PushMetrics
    let transport: any PushTransport
    let directory: any PushDirectory
    let budget: BackgroundBudget
    let now: @Sendable () -> Date

    init(
        name: String, transport: any PushTransport, directory: any PushDirectory, backgroundPushesPerHour: Int,
        metrics: PushMetrics, now: @escaping @Sendable () -> Date
    ) {
        self.name = name
        self.type = transport.service.rawValue
        self.transport = transport
        self.directory = directory
        self.budget = BackgroundBudget(perHour: backgroundPushesPerHour)
        self.metrics = metrics
        self.now = now
    }

    public func deliver(_ outboxEvent: OutboxEvent) async throws(SinkError) -> SinkOutcome {
        let event: SinkEvent
        do {
            event = try SinkEvent(json: outboxEvent.bytes)
        } catch {
            metrics.record(.failed)
            throw SinkError("cannot read the event: \(error)", retryable: false)
        }
        let found: PushAddress?
        do {
            found = try await directory.pushAddress(for: outboxEvent.userID)
        } catch {
            metrics.record(.retried)
            throw SinkError("cannot read the user's push address: \(error)")
        }
        guard let address = found, address.service == transport.service else {
            metrics.record(.skippedNoToken)
            return .skipped(reason: "no_token")
        }
        guard address.isReachable else {
            if let skipped = try await rerouted(event) { return skipped }
            metrics.record(.unreachable)
            return .skipped(reason: "unreachable")
        }
        if outboxEvent.kind != .reminder,
            !budget.admit(outboxEvent.userID, now: now(), force: outboxEvent.kind == .withdraw)
        {
            metrics.record(.skippedBudget)
            return .skipped(reason: "budget")
        }
        let answer: PushAnswer
        do {
            answer = try await transport.send(event, eventID: outboxEvent.id, to: address)
        } catch {
            metrics.record(error.retryable ? .retried : .failed)
            throw error
        }
        switch answer {
        case .delivered:
            metrics.record(.delivered)
            return .delivered
        case .deadToken(let reason):
            do {
                try await directory.markUnreachable(outboxEvent.userID, token: address.token, reason: reason, at: now())
            } catch {
                // Not recorded: the event is tried again, and the verdict stored with its answer.
                metrics.record(.retried)
                throw SinkError("\(type): \(reason), and storing that failed: \(error)")
            }
            if let skipped = try await rerouted(event) { return skipped }
            metrics.record(.unreachable)
            throw SinkError(reason, retryable: false)
        }
    }

    /// Hands a reminder for an unreachable user to the fallback sinks; nil when there are none
    /// (the caller goes on as without them).
    private func rerouted(_ event: SinkEvent) async throws(SinkError) -> SinkOutcome? {
        guard case .reminder(let reminder) = event else { return nil }
        let result: RerouteResult
        do {
            result = try await directory.reroute(reminder)
        } catch {
            metrics.record(.retried)
            throw SinkError("cannot hand the reminder to the fallback sinks: \(error)")
        }
        switch result {
        case .rerouted, .alreadyRerouted:
            metrics.record(.rerouted)
            return .skipped(reason: "fallback")
        case .notPending:
            // The episode closed meanwhile: skipped as any reminder to an unreachable user is.
            metrics.record(.unreachable)
            return .skipped(reason: "unreachable")
        case .addressChanged:
            metrics.record(.retried)
            throw SinkError("\(type): the user reported a new address; trying that one")
        case .noFallback:
            return nil
        }
    }
}
