import Foundation
import RemindCore
import RemindTesting
import Testing

/// The ask a report's answer carries (docs/in-app.md): when it is due (an open episode, not
/// held out, `afterSeconds`, `maxPerEpisode`, `minIntervalSeconds`), which screen, its ID, and
/// that it is durable in the episode; and what the repeat criterion makes of it.
struct InAppAskTests {
    let start = Fixtures.date("2026-11-22T10:00:00Z")
    let userID = Fixtures.userID("asked")

    func policy(
        enabled: Bool = true, max: Int = 3, interval: Int64 = 3_600, after: Int64 = 0, holdout: Double = 0
    ) -> ReminderPolicy {
        ReminderPolicy(
            configuration: PolicyConfiguration(
                experiment: Experiment(holdoutPercent: holdout),
                inApp: InAppConfiguration(
                    enabled: enabled, maxPerEpisode: max, minIntervalSeconds: interval, afterSeconds: after)))
    }

    func report(
        _ location: LocationAuthorization = .whileInUse, services: Bool = true, at offset: TimeInterval,
        canPrompt: [PromptablePermission]? = nil
    ) -> PermissionReport {
        PermissionReport(
            location: location, locationServices: services, notifications: .authorized,
            observedAt: start.addingTimeInterval(offset), canPrompt: canPrompt)
    }

    /// Applies reports in order (each received when observed); the outcomes.
    func run(
        _ policy: ReminderPolicy, _ reports: [PermissionReport], from record: UserRecord? = nil
    )
        -> [ReportOutcome]
    {
        var record = record
        return reports.map { report in
            let outcome = policy.apply(report, to: record, userID: userID, receivedAt: report.observedAt)
            record = outcome.record
            return outcome
        }
    }

    @Test func disabledNeverAsks() {
        let outcomes = run(policy(enabled: false), [report(at: 0), report(at: 7_200)])
        #expect(outcomes.allSatisfy { $0.ask == nil })
        #expect(outcomes.last?.record.openEpisode?.asks.isEmpty == true)
    }

    /// The first report of an episode gets `a1`; the next within the interval none (and is then
    /// not a change); after the interval `a2`; past the cap none; the ask is kept in the episode.
    @Test func asksFollowTheIntervalAndTheCap() throws {
        let policy = policy(max: 2, interval: 3_600)
        let outcomes = run(policy, [report(at: 0), report(at: 60), report(at: 3_600), report(at: 9_000)])
        let startSeconds = Int(start.timeIntervalSince1970)
        #expect(
            outcomes.map { $0.ask?.id } == ["\(userID)/\(startSeconds)/a1", nil, "\(userID)/\(startSeconds)/a2", nil])
        #expect(outcomes.map(\.changed) == [true, false, true, false])
        let episode = try #require(outcomes.last?.record.openEpisode)
        #expect(episode.asks.map(\.number) == [1, 2])
        #expect(episode.asks[1].givenAt == start.addingTimeInterval(3_600))
        #expect(
            episode.asks.allSatisfy {
                $0.action == .settings && $0.page == .app && $0.reason == .locationNotAuthorizedAlways
            })
        #expect(policy.nextAskAt(outcomes[3].record) == nil)
        #expect(policy.nextAskAt(outcomes[1].record) == start.addingTimeInterval(3_600))
    }

    @Test func afterSecondsHoldsTheFirstAskBack() {
        let policy = policy(after: 600)
        let outcomes = run(policy, [report(at: 0), report(at: 599), report(at: 600)])
        #expect(outcomes.map { $0.ask?.number } == [nil, nil, 1])
        #expect(policy.nextAskAt(outcomes[0].record) == start.addingTimeInterval(600))
    }

    @Test func theHoldoutAndAClosedEpisodeGetNone() {
        #expect(run(policy(holdout: 100), [report(at: 0), report(at: 7_200)]).allSatisfy { $0.ask == nil })
        let closing = run(policy(interval: 0), [report(at: 0), report(.always, at: 10)])
        #expect(closing.map { $0.ask?.number } == [1, nil])
        #expect(closing[1].record.openEpisode == nil)
    }

    /// The system's dialog while the app can still show it, else the Settings page the reason needs.
    @Test func theScreenFollowsTheReasonAndCanPrompt() {
        let policy = policy()
        let prompt = run(policy, [report(at: 0, canPrompt: [.location])])[0].ask
        #expect(prompt?.action == .prompt && prompt?.page == nil)
        #expect(run(policy, [report(at: 0, canPrompt: [.motion])])[0].ask?.action == .settings)
        let servicesOff = run(policy, [report(.always, services: false, at: 0)])[0].ask
        #expect(servicesOff?.action == .settings && servicesOff?.page == .locationServices)
        #expect(servicesOff?.reason == .locationServicesTurnedOff)
        #expect(Ask.screen(for: .preciseLocationNotEnabled, canPrompt: [.accuracy]).action == .prompt)
        #expect(Ask.screen(for: .motionNotAuthorized, canPrompt: [.motion]).action == .prompt)
    }

    /// A repeat received before the next ask is due is one; from then on it is not (it gets an ask).
    @Test func aRepeatIsNoRepeatOnceAnAskIsDue() throws {
        let policy = policy(interval: 3_600)
        let record = run(policy, [report(at: 0)])[0].record
        let criterion = try #require(RepeatCriterion(record, askDueAt: policy.nextAskAt(record)))
        let early = report(at: 60)
        let late = report(at: 3_600)
        #expect(criterion.isRepeat(early, receivedAt: early.observedAt))
        #expect(!criterion.isRepeat(late, receivedAt: late.observedAt))
    }

    /// Asks and opened reminders survive the user file; an old file without them reads as before.
    @Test func asksAndEngagementRoundTripThroughTheUserFile() throws {
        let policy = policy()
        var record = run(policy, [report(at: 0, canPrompt: [.location])])[0].record
        record.episodes[0].asks[0].shownAt = start.addingTimeInterval(5)
        record.episodes[0].asks[0].acceptedAt = start.addingTimeInterval(6)
        record.episodes[0].deliveries = [
            Delivery(id: "x", sequence: 1, dueAt: start, deliveredAt: start, openedAt: start.addingTimeInterval(2))
        ]
        let read = try UserRecord(json: record.jsonBytes)
        #expect(read == record)
        #expect(read.episodes[0].opening == .first)
    }
}

/// What the app reports the user did: idempotent per (type, id), refused whole naming the
/// event for an ID the user never got, and the `events` of a report applied before it.
struct EngagementEventTests {
    let start = Fixtures.date("2026-11-22T10:00:00Z")
    let userID = Fixtures.userID("engaged")
    let policy = ReminderPolicy(
        configuration: PolicyConfiguration(
            notification: LocationNotificationConfiguration(notificationTriggerDelay: 60),
            inApp: InAppConfiguration(enabled: true)))

    /// A user with one delivered reminder and one ask.
    func remindedAndAsked() throws -> (UserRecord, reminder: String, ask: String) {
        let report = PermissionReport(location: .whileInUse, notifications: .authorized, observedAt: start)
        let asked = policy.apply(report, to: nil, userID: userID, receivedAt: start)
        let fired = policy.fire(asked.record, now: start.addingTimeInterval(120), daemonStartedAt: nil)
        let reminder = try #require(fired.record.openEpisode?.deliveries.first?.id)
        return (fired.record, reminder, try #require(asked.ask?.id))
    }

    func events(_ json: String, at offset: TimeInterval = 300) throws -> [EngagementEvent] {
        guard case .array(let values) = try JSONParser.parse(Array(json.utf8)) else {
            throw ValidationError(field: "", reason: "")
        }
        return try EngagementEvent.list(values, field: "events", receivedAt: start.addingTimeInterval(offset))
    }

    @Test func eachEventCountsOnce() throws {
        var (record, reminder, ask) = try remindedAndAsked()
        let batch = try events(
            #"[{"type":"reminderOpened","id":"\#(reminder)"},{"type":"askShown","id":"\#(ask)","at":"2026-11-22T10:04:00Z"},"#
                + #"{"type":"askAccepted","id":"\#(ask)"},{"type":"askShown","id":"\#(ask)"}]"#)
        #expect(try policy.applyEvents(batch, to: &record) == 3)
        #expect(try policy.applyEvents(batch, to: &record) == 0)
        let episode = try #require(record.openEpisode)
        #expect(episode.openedCount == 1 && episode.asksShown == 1 && episode.asksAccepted == 1)
        #expect(episode.asks[0].shownAt == Fixtures.date("2026-11-22T10:04:00Z"))
        #expect(episode.deliveries[0].openedAt == start.addingTimeInterval(300))
        #expect(try UserRecord(json: record.jsonBytes) == record)
    }

    /// One bad event refuses them all, naming it; the record is untouched.
    @Test func anUnknownIDRefusesTheWholeRequest() throws {
        let (record, reminder, _) = try remindedAndAsked()
        for (id, words) in [("\(userID)/1/9", "is not a reminder"), ("someone-else/1/1", "another user's")] {
            let batch = try events(
                #"[{"type":"reminderOpened","id":"\#(reminder)"},{"type":"reminderOpened","id":"\#(id)"}]"#)
            let outcome = policy.applyEvents(batch, to: record, userID: userID)
            #expect(outcome.refusal?.field == "events[1].id" && outcome.refusal?.status == 422)
            #expect(outcome.refusal?.reason.contains(words) == true)
        }
        let unknownUser = policy.applyEvents([], to: nil, userID: userID)
        #expect(unknownUser.refusal?.status == 404)
    }

    @Test(arguments: [
        (#"[{"type":"askClicked","id":"a"}]"#, "events[0].type"),
        (#"[{"type":"askShown"}]"#, "events[0].id"),
        (#"[{"type":"askShown","id":"a","at":"2026-11-22T10:20:01Z"}]"#, "events[0].at"),
        (#"[{"type":"askShown","id":"a","at":"yesterday"}]"#, "events[0].at"),
        (#"[3]"#, "events[0]"),
    ])
    func badEventsAreRefusedNamingTheField(json: String, field: String) throws {
        #expect {
            try events(json)
        } throws: { error in
            (error as? ValidationError)?.field == field && (error as? ValidationError)?.status == 422
        }
    }

    @Test func moreThanAHundredAreRefused() throws {
        let many = "[" + Array(repeating: #"{"type":"askShown","id":"a"}"#, count: 101).joined(separator: ",") + "]"
        #expect { try events(many) } throws: { ($0 as? ValidationError)?.field == "events" }
    }

    /// A report's events apply before it; a bad one refuses the report (its record unchanged).
    @Test func aReportsEventsApplyFirstOrRefuseIt() throws {
        let (record, reminder, _) = try remindedAndAsked()
        let at = start.addingTimeInterval(400)
        var report = PermissionReport(location: .always, notifications: .authorized, observedAt: at)
        report.events = try events(#"[{"type":"reminderOpened","id":"\#(reminder)"}]"#, at: 400)
        let fixed = policy.apply(report, to: record, userID: userID, receivedAt: at)
        #expect(fixed.refusal == nil && fixed.acceptedEvents == 1 && fixed.record.openEpisode == nil)
        #expect(fixed.record.episodes[0].openedCount == 1 && fixed.outcomes.count == 1)
        report.events = try events(#"[{"type":"reminderOpened","id":"\#(userID)/0/7"}]"#, at: 400)
        let refused = policy.apply(report, to: record, userID: userID, receivedAt: at)
        #expect(refused.refusal?.field == "events[0].id" && refused.record == record)
        let newUser = policy.apply(report, to: nil, userID: userID, receivedAt: at)
        #expect(newUser.refusal?.status == 422)
    }
}

/// How an episode opened: the user's first report, a downgrade from Always, or again.
struct EpisodeOpeningTests {
    let start = Fixtures.date("2026-11-22T10:00:00Z")
    /// Reminding of Always only: location services off is a state without Always that opens nothing.
    let policy = ReminderPolicy(
        configuration: PolicyConfiguration(
            notification: LocationNotificationConfiguration(
                remindFor: PermissionErrorSet([.locationNotAuthorizedAlways]))))

    /// The opening of the newest episode after reports of these states (`nil` location: Always
    /// with location services off).
    func opening(_ states: [LocationAuthorization?]) -> Episode.Opening? {
        var record: UserRecord?
        for (index, state) in states.enumerated() {
            let at = start.addingTimeInterval(TimeInterval(index * 60))
            record =
                policy.apply(
                    PermissionReport(location: state ?? .always, locationServices: state != nil, observedAt: at),
                    to: record, userID: Fixtures.userID("o"), receivedAt: at
                ).record
        }
        return record?.episodes.first?.opening
    }

    @Test func openingsAreTold() {
        #expect(opening([.whileInUse]) == .first)
        #expect(opening([.always, .whileInUse]) == .downgrade)
        #expect(opening([.whileInUse, .always, .whileInUse]) == .downgrade)
        #expect(opening([.always, .whileInUse, .always, .denied]) == .downgrade)
        #expect(opening([nil, .whileInUse]) == .again)
        #expect(opening([.always, nil, .denied]) == .again)
    }
}

/// The copy's walk with in-app texts and platforms: each text the first found of the platform's
/// set, then the variant's own; in-app texts fall back to the notification's; reminders use
/// the platform's texts too.
struct InAppCopyTests {
    let copy: CopySet = {
        var ios = CopySet(texts: CopySet.Texts(inAppTitle: "iOS title"))
        ios.localizations = ["de": CopySet.Localization(texts: CopySet.Texts(inAppButton: "Einstellungen"))]
        ios.byReason = [.locationServicesTurnedOff: CopySet.Texts(notificationTitle: "iOS: services off")]
        var set = CopySet(
            texts: CopySet.Texts(
                notificationTitle: "Trips", notificationDescription: "Grant Always", inAppBody: "Why Always matters"))
        set.localizations = ["de": CopySet.Localization(notificationTitle: "Fahrten")]
        set.platforms = [.ios: ios]
        return set
    }()

    @Test func eachTextIsTheFirstFound() {
        let iosGerman = copy.resolveAsk(
            reason: .locationNotAuthorizedAlways, locale: "de-CH", platform: .ios, action: .settings)
        #expect(iosGerman.title == "iOS title" && iosGerman.body == "Why Always matters")
        #expect(iosGerman.button == "Einstellungen")
        let android = copy.resolveAsk(
            reason: .locationNotAuthorizedAlways, locale: "de", platform: .android, action: .prompt)
        // No in-app title anywhere for Android: the notification's, in German.
        #expect(android.title == "Fahrten" && android.button == "Allow")
        #expect(
            copy.resolveAsk(reason: .locationNotAuthorizedAlways, locale: nil, platform: nil, action: .settings).button
                == "Open Settings")
        #expect(
            copy.resolve(reason: .locationServicesTurnedOff, locale: "de", platform: .ios).title == "iOS: services off")
        #expect(copy.resolve(reason: .locationServicesTurnedOff, locale: "de", platform: .android).title == "Fahrten")
    }

    @Test func platformsAreTheFirstWordOfTheReportedOne() {
        #expect(CopyPlatform(reported: "Android 14") == .android && CopyPlatform(reported: "iOS 18.1") == .ios)
        #expect(CopyPlatform(reported: "IOS") == .ios && CopyPlatform(reported: "iPadOS 18") == nil)
        #expect(CopyPlatform(reported: nil) == nil && CopyPlatform(reported: "") == nil)
        // The statistics' platform reads the same word, from a string or an outcome line's bytes.
        for text in ["Android 14", " iOS 18", "ios", "HarmonyOS 4", "   "] {
            #expect(ReportedPlatform(reported: text) == ReportedPlatform(utf8: ArraySlice(text.utf8)), "\(text)")
            #expect(ReportedPlatform(reported: text)?.copyPlatform == CopyPlatform(reported: text), "\(text)")
        }
        #expect(ReportedPlatform(reported: "") == nil && ReportedPlatform(reported: nil) == nil)
    }

    /// A reminder fired from the schedule alone is worded for the user's platform.
    @Test func remindersUseThePlatformsTexts() throws {
        var notification = LocationNotificationConfiguration(notificationTriggerDelay: 60)
        notification.platforms = [.android: CopySet(texts: CopySet.Texts(notificationTitle: "Allow all the time"))]
        let policy = ReminderPolicy(configuration: PolicyConfiguration(notification: notification))
        let start = Fixtures.date("2026-11-22T10:00:00Z")
        var report = PermissionReport(location: .whileInUse, notifications: .authorized, observedAt: start)
        report.platform = "Android 14"
        let record = policy.apply(report, to: nil, userID: Fixtures.userID("droid"), receivedAt: start).record
        #expect(record.schedule.platform == .android)
        let fired = policy.fire(record.schedule, now: start.addingTimeInterval(120), daemonStartedAt: nil)
        guard case .reminder(let reminder)? = fired.events.first else {
            throw ValidationError(field: "", reason: "no reminder")
        }
        #expect(reminder.title == "Allow all the time")
    }
}
