import Foundation

/// What became of a reminder a push sink could not deliver (`ReminderPolicy.reroute`).
public enum RerouteResult: Sendable, Equatable {
    /// It goes to the fallback sinks now, `because: unreachable`.
    case rerouted
    /// It went there already (a push sink tried it again after a crash): nothing more to send.
    case alreadyRerouted
    /// No sink has role `fallback`: the push sink handles it as it always did.
    case noFallback
    /// Its episode closed or it is not the user's (the user was forgotten): nothing to send.
    case notPending
    /// A report brought a reachable address since: the push sink should try that one.
    case addressChanged
}

extension ReminderPolicy {
    /// A reminder on the push channel that a push sink could not deliver, because the user's
    /// address is unreachable (the service called the token dead, now or before), goes at once to
    /// the fallback sinks (docs/fallback.md): its delivery takes the fallback channel,
    /// `because: unreachable`, and the outcome carries the reminder again, with the same id,
    /// for the fallback sinks alone. Idempotent: a delivery on the fallback channel already
    /// changes nothing, so a push sink trying the event again after a crash sends nothing twice.
    /// The outcome of anything but `rerouted` is refused: nothing of it is stored.
    public func reroute(
        _ reminder: SinkEvent.Reminder, of record: UserRecord?
    ) -> (outcome: ReportOutcome, result: RerouteResult) {
        // Refused, so that the store persists nothing, not even a record for an unknown user.
        let unchanged = { (result: RerouteResult) in
            (
                ReportOutcome.refused(
                    ValidationError(field: "event", reason: "is not rerouted (\(result))"), userID: reminder.userID,
                    record: record),
                result
            )
        }
        guard configuration.channels.hasFallback else { return unchanged(.noFallback) }
        guard var record, let episode = record.openEpisode, episode.startedAt == reminder.episodeStartedAt,
            let index = episode.deliveries.firstIndex(where: { $0.id == reminder.id && !$0.heldOut })
        else { return unchanged(.notPending) }
        if episode.deliveries[index].channel == .fallback { return unchanged(.alreadyRerouted) }
        if record.device.push?.isReachable == true { return unchanged(.addressChanged) }
        record.episodes[0].deliveries[index].channel = .fallback
        record.episodes[0].deliveries[index].because = .unreachable
        var event = reminder
        (event.channel, event.because, event.rerouted) = (.fallback, .unreachable, true)
        return (ReportOutcome(record: record, changed: true, events: [.reminder(event)], transitions: []), .rerouted)
    }
}
