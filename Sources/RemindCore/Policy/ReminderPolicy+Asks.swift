import Foundation

/// Whether the answer to a report carries an ask, and why not (what `explain` shows).
public enum AskDecision: Sendable, Equatable {
    /// An ask is due: the screen for the user's current reason.
    case due(reason: PermissionErrorType, action: Ask.Action, page: Ask.Page?)
    /// None is due; `until` is when one would be if nothing else changed (nil: not while the
    /// record stays as it is).
    case notDue(because: String, until: Date?)
}

/// The in-app side of the policy (docs/in-app.md): which screen a report's answer asks the app
/// to show, and what the app reports the user did.
extension ReminderPolicy {
    /// Whether a report received at `receivedAt` gets an ask, the report already applied to
    /// `record`: an episode is open, not held out, old enough (`afterSeconds`), under its cap
    /// (`maxPerEpisode`) and the last ask at least `minIntervalSeconds` ago.
    public func askDecision(for record: UserRecord, at receivedAt: Date) -> AskDecision {
        let inApp = configuration.inApp
        guard inApp.enabled else { return .notDue(because: "inApp is disabled", until: nil) }
        guard let episode = record.openEpisode else {
            return .notDue(because: "no episode is open: nothing to fix", until: nil)
        }
        guard episode.group != Experiment.holdoutGroup else {
            return .notDue(because: "the episode is in the holdout, which gets no asks", until: nil)
        }
        guard episode.asks.count < inApp.maxPerEpisode else {
            return .notDue(
                because: "\(episode.asks.count) asks were given in this episode (inApp.maxPerEpisode)", until: nil)
        }
        guard let reason = record.permissions.flatMap(reason) ?? episode.reason else {
            return .notDue(because: "the user has no reason to remind of", until: nil)
        }
        // The later of the two bounds decides, so `until` is when both hold.
        let afterStart = episode.startedAt.addingTimeInterval(TimeInterval(inApp.afterSeconds))
        let afterLast = episode.asks.last.map { $0.givenAt.addingTimeInterval(TimeInterval(inApp.minIntervalSeconds)) }
        if let afterLast, afterLast > afterStart, receivedAt < afterLast {
            return .notDue(because: "the last ask was less than inApp.minIntervalSeconds ago", until: afterLast)
        }
        if receivedAt < afterStart {
            return .notDue(because: "the episode is younger than inApp.afterSeconds", until: afterStart)
        }
        let screen = Ask.screen(for: reason, canPrompt: record.device.canPrompt)
        return .due(reason: reason, action: screen.action, page: screen.page)
    }

    /// The earliest receive time at which a report that changes nothing would get an ask; nil
    /// when none would while the record stays as it is. A repeat received before it is
    /// answered without one.
    public func nextAskAt(_ record: UserRecord) -> Date? {
        switch askDecision(for: record, at: .distantPast) {
        case .due: .distantPast
        case .notDue(_, let until): until
        }
    }

    /// Gives the ask due at `receivedAt`, if any: it joins the open episode (durable with the
    /// report) and is returned for the answer.
    func giveAsk(_ record: inout UserRecord, at receivedAt: Date) -> Ask? {
        guard case .due(let reason, let action, let page) = askDecision(for: record, at: receivedAt) else {
            return nil
        }
        let number = record.episodes[0].asks.count + 1
        let ask = Ask(
            id: Ask.id(userID: record.userID, episodeStartedAt: record.episodes[0].startedAt, number: number),
            number: number, givenAt: receivedAt, action: action, page: page, reason: reason)
        record.episodes[0].asks.append(ask)
        return ask
    }

    /// Records what the app reported the user did: each event marks its reminder or ask, once
    /// per (type, ID). Returns how many were new; throws (422) naming `field[i].id` for an ID
    /// that is not one of the user's reminders or asks, and then changes nothing.
    public func applyEvents(
        _ events: [EngagementEvent], to record: inout UserRecord, field: String = "events"
    ) throws(ValidationError) -> Int {
        var updated = record
        var accepted = 0
        for (index, event) in events.enumerated() {
            let path = "\(field)[\(index)].id"
            switch event.kind {
            case .reminderOpened:
                guard let (episode, delivery) = Self.delivery(event.id, in: updated) else {
                    throw Self.unknown(event.id, "reminder this user was sent", of: record.userID, field: path)
                }
                if updated.episodes[episode].deliveries[delivery].openedAt == nil {
                    updated.episodes[episode].deliveries[delivery].openedAt = event.at
                    accepted += 1
                }
            case .askShown, .askAccepted, .askDismissed:
                guard let (episode, ask) = Self.ask(event.id, in: updated) else {
                    throw Self.unknown(event.id, "ask this user was given", of: record.userID, field: path)
                }
                let moment: WritableKeyPath<Ask, Date?> =
                    switch event.kind {
                    case .askShown: \.shownAt
                    case .askAccepted: \.acceptedAt
                    default: \.dismissedAt
                    }
                if updated.episodes[episode].asks[ask][keyPath: moment] == nil {
                    updated.episodes[episode].asks[ask][keyPath: moment] = event.at
                    accepted += 1
                }
            }
        }
        record = updated
        return accepted
    }

    /// The change of `POST /v1/users/{userID}/events`: the events applied to the user's record,
    /// refused whole (nothing stored) when one names what the user never got, and with 404 for
    /// an unknown user.
    public func applyEvents(_ events: [EngagementEvent], to record: UserRecord?, userID: UserID) -> ReportOutcome {
        guard var record else {
            return .refused(
                ValidationError(field: "userID", reason: "is not a known user", status: 404),
                userID: userID)
        }
        do {
            let accepted = try applyEvents(events, to: &record)
            var outcome = ReportOutcome(record: record, changed: accepted > 0, events: [], transitions: [])
            outcome.acceptedEvents = accepted
            return outcome
        } catch {
            return .refused(error, userID: userID)
        }
    }

    /// What `explain` says of the app's side: the ask a report received at `now` would get (or
    /// why none, and from when one would), and the open episode's engagement so far.
    /// Nothing while `inApp` is disabled: no answer carries an ask then.
    func explainAsk(_ record: UserRecord, now: Date) -> [Explanation.Reason] {
        guard configuration.inApp.enabled else { return [] }
        var reasons: [Explanation.Reason] = []
        let canPrompt =
            record.device.canPrompt.isEmpty
            ? "the app reports it can ask for nothing (canPrompt)"
            : "the app can still ask for \(record.device.canPrompt.map(\.rawValue).joined(separator: ", ")) (canPrompt)"
        switch askDecision(for: record, at: now) {
        case .due(let reason, let action, let page):
            let screen = action == .prompt ? "the system's dialog (prompt)" : "Settings (\(page?.rawValue ?? "app"))"
            let number = (record.openEpisode?.asks.count ?? 0) + 1
            reasons.append(
                .init(
                    code: .ask,
                    text: "the next report gets ask #\(number): \(screen) for \(reason.rawValue); \(canPrompt)"))
        case .notDue(let because, let until):
            let from = until.map { "; one is due from \(RFC3339.format($0))" } ?? ""
            reasons.append(.init(code: .ask, text: "the next report gets no ask: \(because)\(from)"))
        }
        if let episode = record.openEpisode, !episode.asks.isEmpty || episode.openedCount > 0 {
            reasons.append(
                .init(
                    code: .engagement,
                    text:
                        "this episode: \(episode.openedCount) of \(episode.sent.count) reminder(s) opened; \(episode.asks.count) ask(s) given, \(episode.asksShown) shown, \(episode.asksAccepted) accepted"
                ))
        }
        return reasons
    }

    private static func delivery(_ id: String, in record: UserRecord) -> (Int, Int)? {
        for (episodeIndex, episode) in record.episodes.enumerated() {
            if let index = episode.deliveries.firstIndex(where: { $0.id == id && !$0.heldOut }) {
                return (episodeIndex, index)
            }
        }
        return nil
    }

    private static func ask(_ id: String, in record: UserRecord) -> (Int, Int)? {
        for (episodeIndex, episode) in record.episodes.enumerated() {
            if let index = episode.asks.firstIndex(where: { $0.id == id }) { return (episodeIndex, index) }
        }
        return nil
    }

    /// The refusal of an ID the user never got: reminder and ask IDs begin with their user's.
    private static func unknown(_ id: String, _ what: String, of userID: UserID, field: String) -> ValidationError {
        let reason =
            id.hasPrefix(userID.rawValue + "/")
            ? "is not a \(what) (or no longer kept)"
            : "names another user's: it is not a \(what)"
        return ValidationError(field: field, reason: reason, status: 422)
    }
}
