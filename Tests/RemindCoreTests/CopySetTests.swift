import RemindCore
import Testing

/// Copy resolution (docs/configuration.md): each text, independently, is the first found of the
/// localization's byReason, the localization's text, the set's byReason, the set's text and
/// Zendrive's default; the localization is the exact tag (ignoring case), else the language.
struct CopySetTests {
    /// Every level set, each with a text naming where it came from.
    static let full = CopySet(
        notificationTitle: "set title", notificationDescription: "set body",
        byReason: [
            .preciseLocationNotEnabled: .init(
                notificationTitle: "set precise title", notificationDescription: "set precise body"),
            .motionNotAuthorized: .init(notificationDescription: "set motion body"),
        ],
        localizations: [
            "de": .init(
                notificationTitle: "de title", notificationDescription: "de body",
                byReason: [.preciseLocationNotEnabled: .init(notificationTitle: "de precise title")]),
            "de-CH": .init(notificationTitle: "de-CH title"),
            "pt-BR": .init(
                byReason: [.locationServicesTurnedOff: .init(notificationDescription: "pt-BR services body")]),
        ])

    /// A set with no texts at all: everything falls back to Zendrive's default.
    static let empty = CopySet()

    struct Case: Sendable, CustomTestStringConvertible {
        var set: CopySet
        var reason: PermissionErrorType
        var locale: String?
        var title: String
        var body: String
        var testDescription: String { "\(reason.rawValue) \(locale ?? "no locale") → \(title) / \(body)" }
    }

    static let defaultTitle = LocationNotificationConfiguration.defaultTitle
    static let defaultBody = LocationNotificationConfiguration.defaultDescription

    static let cases: [Case] = [
        // No locale: the set's byReason, else the set's text.
        Case(set: full, reason: .locationNotAuthorizedAlways, locale: nil, title: "set title", body: "set body"),
        Case(
            set: full, reason: .preciseLocationNotEnabled, locale: nil, title: "set precise title",
            body: "set precise body"),
        // byReason with one text only: the other falls back to the set's text.
        Case(set: full, reason: .motionNotAuthorized, locale: nil, title: "set title", body: "set motion body"),
        // Exact tag, ignoring case; its missing body falls back past the language (one
        // localization is chosen) to the set.
        Case(set: full, reason: .locationNotAuthorizedAlways, locale: "de-CH", title: "de-CH title", body: "set body"),
        Case(set: full, reason: .locationNotAuthorizedAlways, locale: "DE-ch", title: "de-CH title", body: "set body"),
        // Language subtag when no exact tag: de-AT → de.
        Case(set: full, reason: .locationNotAuthorizedAlways, locale: "de-AT", title: "de title", body: "de body"),
        Case(set: full, reason: .locationNotAuthorizedAlways, locale: "de", title: "de title", body: "de body"),
        Case(set: full, reason: .locationNotAuthorizedAlways, locale: "De-Latn-AT", title: "de title", body: "de body"),
        // The localization's byReason first, then its text, per text.
        Case(
            set: full, reason: .preciseLocationNotEnabled, locale: "de-AT", title: "de precise title", body: "de body"),
        // The localization has no text for this: the set's byReason, then the set's text.
        Case(
            set: full, reason: .motionNotAuthorized, locale: "pt-BR", title: "set title", body: "set motion body"),
        Case(
            set: full, reason: .locationServicesTurnedOff, locale: "pt-BR", title: "set title",
            body: "pt-BR services body"),
        // pt-PT has no exact tag and no `pt`: no localization.
        Case(set: full, reason: .locationServicesTurnedOff, locale: "pt-PT", title: "set title", body: "set body"),
        // An unknown language: the set.
        Case(
            set: full, reason: .preciseLocationNotEnabled, locale: "fr-FR", title: "set precise title",
            body: "set precise body"),
        // Missing texts at every level: Zendrive's default.
        Case(set: empty, reason: .locationNotAuthorizedAlways, locale: "de", title: defaultTitle, body: defaultBody),
        Case(
            set: CopySet(localizations: ["de": .init(notificationDescription: "nur Text")]),
            reason: .locationNotAuthorizedAlways, locale: "de", title: defaultTitle, body: "nur Text"),
        Case(
            set: CopySet(byReason: [.motionNotAuthorized: .init(notificationTitle: "motion")]),
            reason: .motionNotAuthorized, locale: nil, title: "motion", body: defaultBody),
    ]

    @Test(arguments: cases)
    func resolvesEachTextIndependently(_ example: Case) {
        let resolved = example.set.resolve(reason: example.reason, locale: example.locale)
        #expect(resolved.title == example.title)
        #expect(resolved.body == example.body)
    }

    /// The `notification` block is the `default` variant's set: its texts (defaulted to
    /// Zendrive's) are the set's texts.
    @Test func notificationBlockIsTheDefaultCopySet() throws {
        let configuration = try LocationNotificationConfiguration(
            object: [
                "notificationTitle": .string("App is unable to record trips"),
                "byReason": .object([
                    "locationServicesTurnedOff": .object([
                        "notificationDescription": .string("Turn on Location Services in Settings.")
                    ])
                ]),
                "localizations": .object([
                    "de": .object([
                        "notificationTitle": .string("Die App kann keine Fahrten aufzeichnen"),
                        "notificationDescription": .string("Bitte erlaube den Standortzugriff „Immer“."),
                    ])
                ]),
            ])
        let copy = configuration.copy
        #expect(
            copy.resolve(reason: .locationServicesTurnedOff, locale: "en-US")
                == ("App is unable to record trips", "Turn on Location Services in Settings."))
        #expect(
            copy.resolve(reason: .locationServicesTurnedOff, locale: "de-CH")
                == ("Die App kann keine Fahrten aufzeichnen", "Bitte erlaube den Standortzugriff „Immer“."))
        #expect(
            copy.resolve(reason: .locationNotAuthorizedAlways, locale: nil)
                == ("App is unable to record trips", "Please grant Always access for location."))
    }

    /// Bad copy is refused naming the key path.
    @Test(arguments: [
        (
            #"{"byReason":{"notificationsTurnedOff":{"notificationTitle":"x"}}}"#,
            "notification.byReason.notificationsTurnedOff"
        ),
        (#"{"byReason":{"locationOff":{}}}"#, "notification.byReason.locationOff"),
        (#"{"byReason":{"motionNotAuthorized":{"title":"x"}}}"#, "notification.byReason.motionNotAuthorized.title"),
        (#"{"byReason":{"motionNotAuthorized":"x"}}"#, "notification.byReason.motionNotAuthorized"),
        (#"{"localizations":{"de_CH":{}}}"#, "notification.localizations.de_CH"),
        (#"{"localizations":{"de":{},"DE":{}}}"#, "notification.localizations.DE"),
        (#"{"localizations":{"de":{"notificationTitle":" "}}}"#, "notification.localizations.de.notificationTitle"),
        (
            #"{"localizations":{"de":{"byReason":{"notificationsTurnedOff":{}}}}}"#,
            "notification.localizations.de.byReason.notificationsTurnedOff"
        ),
        (#"{"remindFor":["notificationsTurnedOff"]}"#, "notification.remindFor[0]"),
        (#"{"remindFor":["locationNotAuthorizedAlways","always"]}"#, "notification.remindFor[1]"),
        (#"{"remindFor":["motionNotAuthorized","motionNotAuthorized"]}"#, "notification.remindFor[1]"),
        (#"{"remindFor":[]}"#, "notification.remindFor"),
        (#"{"remindFor":[5]}"#, "notification.remindFor[0]"),
    ])
    func badNotificationBlockNamesTheKeyPath(_ json: String, _ field: String) throws {
        guard case .object(let object) = try JSONParser.parse(Array(json.utf8)) else {
            Issue.record("not an object")
            return
        }
        do {
            _ = try LocationNotificationConfiguration(object: object)
            Issue.record("accepted \(json)")
        } catch {
            #expect(error.field == field)
        }
    }

    /// remindFor is read in any order and shown in precedence order.
    @Test func remindForIsShownInPrecedenceOrder() throws {
        let configuration = try LocationNotificationConfiguration(
            object: ["remindFor": .array([.string("motionNotAuthorized"), .string("preciseLocationNotEnabled")])])
        #expect(configuration.remindFor.members == [.preciseLocationNotEnabled, .motionNotAuthorized])
        guard case .object(let json) = configuration.json else {
            Issue.record("the configuration is not shown as a JSON object")
            return
        }
        #expect(json["remindFor"] == .array([.string("preciseLocationNotEnabled"), .string("motionNotAuthorized")]))
        #expect(try LocationNotificationConfiguration(object: json) == configuration)
    }
}
