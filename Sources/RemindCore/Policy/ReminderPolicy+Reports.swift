import Foundation

/// What storing one report changed.
public struct ReportOutcome: Sendable, Equatable {
    public var record: UserRecord
    /// The history gained or reshaped an entry, or the device (push address, locale) changed:
    /// this must be durable before the reply. When false, only `lastReportAt`, the count and
    /// the newest observation time moved.
    public var changed: Bool
    /// Events to send: a withdraw when an episode with delivered reminders closed.
    public var events: [SinkEvent]
    public var transitions: [EpisodeTransition]
    /// Episodes this report closed, for the outcomes log (docs/outcomes.md).
    public var outcomes: [EpisodeOutcome]
    /// The ask the answer carries (docs/in-app.md), given in this change; nil for none.
    public var ask: Ask?
    /// Engagement events this change recorded that were not recorded before.
    public var acceptedEvents = 0
    /// Why the change is refused whole: the store persists nothing of it, and `update` answers
    /// the refusal (an engagement event naming what the user never got). Its `record` is then
    /// the record before, or an empty one for an unknown user.
    public var refusal: ValidationError?

    public init(
        record: UserRecord, changed: Bool, events: [SinkEvent], transitions: [EpisodeTransition],
        outcomes: [EpisodeOutcome] = []
    ) {
        self.record = record
        self.changed = changed
        self.events = events
        self.transitions = transitions
        self.outcomes = outcomes
    }

    /// A change refused whole: nothing of it may be stored.
    public static func refused(_ error: ValidationError, userID: UserID, record: UserRecord? = nil) -> ReportOutcome {
        var outcome = ReportOutcome(
            record: record ?? UserRecord(userID: userID, lastReportAt: Date(timeIntervalSince1970: 0)), changed: false,
            events: [], transitions: [])
        outcome.refusal = error
        return outcome
    }
}

/// How a report moved the user's episodes, for logging and metrics.
public enum EpisodeTransition: Sendable, Equatable {
    case opened(startedAt: Date)
    case closed(startedAt: Date, closedAt: Date, delivered: Int)
    /// A late report showed the episode began earlier (or, after a late Always report inside
    /// it, later) than thought.
    case movedStart(from: Date, to: Date)
}

extension ReminderPolicy {
    /// Folds one validated report into the user's record (nil for a new user), received at
    /// `receivedAt`.
    public func apply(
        _ report: PermissionReport, to record: UserRecord?, userID: UserID, receivedAt: Date
    )
        -> ReportOutcome
    {
        let receivedAt = receivedAt.millisecondPrecision
        // The events tell of earlier answers, so they apply to the record before the report; a
        // bad one refuses the report whole.
        var acceptedEvents = 0
        var before = record
        if !report.events.isEmpty {
            guard var existing = record else {
                let error = ValidationError(
                    field: "events[0].id", reason: "is not a reminder or ask of this user (a new user)", status: 422)
                return .refused(error, userID: userID)
            }
            do {
                acceptedEvents = try applyEvents(report.events, to: &existing)
            } catch {
                return .refused(error, userID: userID, record: record)
            }
            before = existing
        }
        var outcome = fold(report, into: before, userID: userID, receivedAt: receivedAt)
        if acceptedEvents > 0 { outcome.changed = true }
        outcome.acceptedEvents = acceptedEvents
        return outcome
    }

    /// `apply` without the events: the report folded in, and the ask its answer carries.
    private func fold(
        _ report: PermissionReport, into record: UserRecord?, userID: UserID, receivedAt: Date
    ) -> ReportOutcome {
        var record = record ?? UserRecord(userID: userID, lastReportAt: receivedAt)
        record.reportCount += 1
        record.lastReportAt = max(record.lastReportAt, receivedAt)
        if let platform = report.platform { record.platform = platform }
        if let appVersion = report.appVersion { record.appVersion = appVersion }
        let deviceBefore = record.device
        record.device.apply(locale: report.locale, push: report.push, canPrompt: report.canPrompt)
        // A new push address, locale or `canPrompt` changes no history, but must be as durable
        // as one.
        let deviceChanged = record.device != deviceBefore

        // Ties go to the report received later, as in the fold.
        if let notifications = report.notifications,
            report.observedAt >= (record.knownNotifications?.observedAt ?? .distantPast)
        {
            record.knownNotifications = .init(value: notifications, observedAt: report.observedAt)
        }
        if let timeZone = report.timeZone, report.observedAt >= (record.knownTimeZone?.observedAt ?? .distantPast) {
            record.knownTimeZone = .init(value: timeZone, observedAt: report.observedAt)
        }
        if let motion = report.motion, report.observedAt >= (record.knownMotion?.observedAt ?? .distantPast) {
            record.knownMotion = .init(value: motion, observedAt: report.observedAt)
        }
        // A counter like `reportCount`: it alone does not make the change durable before the reply.
        record.activity.add(observedAt: report.observedAt, timeZone: report.timeZone ?? record.knownTimeZone?.value)
        var effect = HistoryFold.insert(
            report, receivedAt: receivedAt, into: &record.history, maxEntries: configuration.historyMaxEntries)
        if HistoryFold.resolveNewest(
            &record.history, notifications: record.knownNotifications?.value, timeZone: record.knownTimeZone?.value,
            motion: record.knownMotion?.value)
        {
            effect = .changed
        }
        var events: [SinkEvent] = []
        var transitions: [EpisodeTransition] = []
        // Reconciled even when the history did not change: after a reload that changed
        // `remindFor`, the user's next report brings their episodes in line with it.
        let episodesBefore = record.episodes
        reconcileEpisodes(&record, now: receivedAt, events: &events, transitions: &transitions)
        // After the episodes are reconciled: a report that closes the episode gets none.
        let ask = giveAsk(&record, at: receivedAt)
        guard effect == .changed || record.episodes != episodesBefore else {
            return ReportOutcome(record: record, changed: deviceChanged, events: [], transitions: [])
        }
        let outcomes = transitions.compactMap { transition -> EpisodeOutcome? in
            guard case .closed(let startedAt, let closedAt, _) = transition,
                let episode = record.episodes.first(where: { $0.startedAt == startedAt && $0.closedAt == closedAt })
            else { return nil }
            return EpisodeOutcome(episode, of: record, outcome: .resolved, closedAt: closedAt)
        }
        var outcome = ReportOutcome(
            record: record, changed: true, events: events, transitions: transitions, outcomes: outcomes)
        outcome.ask = ask
        return outcome
    }

    /// Brings the stored episodes in line with what the history now says.
    func reconcileEpisodes(
        _ record: inout UserRecord, now: Date, events: inout [SinkEvent], transitions: inout [EpisodeTransition]
    ) {
        let fold = HistoryFold.openEpisodeStart(record.history, isReminding: isReminding)
        if let open = record.openEpisode {
            guard let fold else {
                close(
                    &record,
                    at: HistoryFold.remindingEnded(after: open.startedAt, in: record.history, isReminding: isReminding)
                        ?? now,
                    now: now, events: &events, transitions: &transitions)
                return
            }
            // A late report moved the start of the stretch without Always access: earlier (it
            // began before we knew), or later (a late Always report inside it ended the part
            // before). Either way the user still lacks Always access, so it stays the same
            // episode and keeps its deliveries: a one-off reminder is not sent twice.
            // A later start hidden by truncated history is not believed.
            if fold.start != open.startedAt && (fold.start < open.startedAt || !fold.reachesOldest) {
                record.episodes[0].startedAt = fold.start
                transitions.append(.movedStart(from: open.startedAt, to: fold.start))
            }
            // Otherwise the start is unchanged, or hidden by truncated history: keep ours.
        } else if let fold {
            openEpisode(&record, at: fold.start, transitions: &transitions)
        }
    }

    private func openEpisode(_ record: inout UserRecord, at start: Date, transitions: inout [EpisodeTransition]) {
        // The group is drawn once, here, and kept: a later configuration change must not move
        // an episode from one arm of the experiment to another.
        let group = configuration.experiment.group(for: record.userID)
        let sendTime = configuration.notification.sendTime
        record.episodes.insert(
            Episode(
                startedAt: start, group: group, reason: record.permissions.flatMap(reason),
                sendTime: sendTime == .due ? nil : sendTime.arm(for: record.userID),
                opening: Self.opening(of: record.history, at: start)), at: 0)
        if record.episodes.count > configuration.closedEpisodesKept + 1 {
            record.episodes.removeLast(record.episodes.count - configuration.closedEpisodesKept - 1)
        }
        transitions.append(.opened(startedAt: start))
    }

    /// How an episode starting at `start` opened: from the state observed just before it.
    static func opening(of history: [HistoryEntry], at start: Date) -> Episode.Opening {
        // Newest first: the first entry observed before the start is the state before it.
        guard let previous = history.first(where: { $0.observedAt < start }) else { return .first }
        return previous.permissions.hasAlwaysAccess ? .downgrade : .again
    }

    private func close(
        _ record: inout UserRecord, at closedAt: Date, now: Date, events: inout [SinkEvent],
        transitions: inout [EpisodeTransition]
    ) {
        var episode = record.episodes[0]
        episode.closedAt = max(closedAt, episode.startedAt)
        episode.isSuppressed = false
        record.episodes[0] = episode
        transitions.append(
            .closed(startedAt: episode.startedAt, closedAt: episode.closedAt!, delivered: episode.sent.count))
        // Held-out reminders were never shown: nothing to withdraw.
        if !episode.sent.isEmpty {
            events.append(
                .withdraw(
                    SinkEvent.Withdraw(
                        userID: record.userID, reminderIDs: episode.sent.map(\.id),
                        episodeStartedAt: episode.startedAt, createdAt: now,
                        // Every sink a reminder reached, the fallback's included.
                        audience: SinkAudience(deliveries: episode.sent))))
        }
    }
}
