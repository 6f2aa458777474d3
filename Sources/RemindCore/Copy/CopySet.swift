/// The words of a reminder and of an in-app ask: texts per reason, per language and per
/// platform (docs/configuration.md "Copy").
///
/// The `notification` block of the configuration is the copy set of the `default` variant;
/// an experiment variant is a whole copy set of its own, so a user in a variant never gets
/// another set's texts. Any text may be absent at any level: `resolve` falls back through the
/// levels to Zendrive's default.
public struct CopySet: Sendable, Equatable {
    /// The texts a copy set may hold at each level.
    public enum Key: String, Sendable, CaseIterable {
        case notificationTitle
        case notificationDescription
        case inAppTitle
        case inAppBody
        case inAppButton

        /// Texts that must not be blank where given: a notification or screen without a title
        /// or button shows nothing to act on.
        var mustNotBeBlank: Bool { self != .notificationDescription && self != .inAppBody }
    }

    /// Texts by key, any of which may be absent.
    public struct Texts: Sendable, Equatable {
        public var values: [Key: String]

        public init(
            notificationTitle: String? = nil, notificationDescription: String? = nil, inAppTitle: String? = nil,
            inAppBody: String? = nil, inAppButton: String? = nil
        ) {
            values = [:]
            values[.notificationTitle] = notificationTitle
            values[.notificationDescription] = notificationDescription
            values[.inAppTitle] = inAppTitle
            values[.inAppBody] = inAppBody
            values[.inAppButton] = inAppButton
        }

        public subscript(key: Key) -> String? {
            get { values[key] }
            set { values[key] = newValue }
        }

        public var notificationTitle: String? {
            get { values[.notificationTitle] }
            set { values[.notificationTitle] = newValue }
        }
        public var notificationDescription: String? {
            get { values[.notificationDescription] }
            set { values[.notificationDescription] = newValue }
        }
    }

    /// The texts for one language tag, with their own texts per reason.
    public struct Localization: Sendable, Equatable {
        public var texts: Texts
        public var byReason: [PermissionErrorType: Texts]

        public init(texts: Texts = Texts(), byReason: [PermissionErrorType: Texts] = [:]) {
            self.texts = texts
            self.byReason = byReason
        }

        public init(
            notificationTitle: String? = nil, notificationDescription: String? = nil,
            byReason: [PermissionErrorType: Texts] = [:]
        ) {
            self.init(
                texts: Texts(notificationTitle: notificationTitle, notificationDescription: notificationDescription),
                byReason: byReason)
        }

        public var notificationTitle: String? { texts.notificationTitle }
        public var notificationDescription: String? { texts.notificationDescription }
    }

    public var texts: Texts
    public var byReason: [PermissionErrorType: Texts]
    /// BCP 47 tag → texts; tags are unique ignoring case and matched ignoring case.
    public var localizations: [String: Localization]
    /// A copy set of its own per platform, walked before this one for users of that platform
    /// (never nested: a platform's set has no `platforms`).
    public var platforms: [CopyPlatform: CopySet]

    public init(
        texts: Texts, byReason: [PermissionErrorType: Texts] = [:], localizations: [String: Localization] = [:],
        platforms: [CopyPlatform: CopySet] = [:]
    ) {
        self.texts = texts
        self.byReason = byReason
        self.localizations = localizations
        self.platforms = platforms
    }

    public init(
        notificationTitle: String? = nil, notificationDescription: String? = nil,
        byReason: [PermissionErrorType: Texts] = [:], localizations: [String: Localization] = [:]
    ) {
        self.init(
            texts: Texts(notificationTitle: notificationTitle, notificationDescription: notificationDescription),
            byReason: byReason, localizations: localizations)
    }

    public var notificationTitle: String? { texts.notificationTitle }
    public var notificationDescription: String? { texts.notificationDescription }

    /// The title and body of a reminder with `reason` to a user whose locale is `locale`, on
    /// `platform` (the first word of the user's reported platform; nil for none).
    ///
    /// Each text is, independently, the first found of: the platform's set walked as below, then
    /// this set walked: the localization's `byReason[reason]`, the localization's own text, the
    /// set's `byReason[reason]`, the set's text; else Zendrive's default. The localization is
    /// the one whose tag equals `locale` ignoring case, else the one named by its language
    /// subtag (`de-CH` → `de`).
    public func resolve(
        reason: PermissionErrorType, locale: String?, platform: CopyPlatform? = nil
    ) -> (title: String, body: String) {
        (
            text(.notificationTitle, reason: reason, locale: locale, platform: platform)
                ?? LocationNotificationConfiguration.defaultTitle,
            text(.notificationDescription, reason: reason, locale: locale, platform: platform)
                ?? LocationNotificationConfiguration.defaultDescription
        )
    }

    /// The title, body and button of an ask: each walked as `resolve` walks a reminder's texts;
    /// an in-app text found nowhere is the notification's (`inAppTitle` → `notificationTitle`,
    /// `inAppBody` → `notificationDescription`), and the button `"Allow"` for a prompt,
    /// `"Open Settings"` for a Settings page.
    public func resolveAsk(
        reason: PermissionErrorType, locale: String?, platform: CopyPlatform?, action: Ask.Action
    ) -> (title: String, body: String, button: String) {
        let notification = resolve(reason: reason, locale: locale, platform: platform)
        return (
            text(.inAppTitle, reason: reason, locale: locale, platform: platform) ?? notification.title,
            text(.inAppBody, reason: reason, locale: locale, platform: platform) ?? notification.body,
            text(.inAppButton, reason: reason, locale: locale, platform: platform)
                ?? (action == .prompt ? "Allow" : "Open Settings")
        )
    }

    /// The first `key` text found for a user on `platform`: the platform's set, then this one.
    public func text(_ key: Key, reason: PermissionErrorType, locale: String?, platform: CopyPlatform?) -> String? {
        if let platform, let set = platforms[platform], let found = set.text(key, reason: reason, locale: locale) {
            return found
        }
        return text(key, reason: reason, locale: locale)
    }

    /// The first `key` text of this set's walk, without platforms.
    private func text(_ key: Key, reason: PermissionErrorType, locale: String?) -> String? {
        let localization = locale.flatMap(localization(for:))
        return localization?.byReason[reason]?[key] ?? localization?.texts[key] ?? byReason[reason]?[key] ?? texts[key]
    }

    /// The localization for `locale`: its exact tag, else its language subtag, ignoring case.
    public func localization(for locale: String) -> Localization? {
        if let exact = localizations.first(where: { $0.key.caseInsensitiveEquals(locale) }) {
            return exact.value
        }
        guard let language = locale.split(separator: "-").first, language.count < locale.count else { return nil }
        return localizations.first(where: { $0.key.caseInsensitiveEquals(language) })?.value
    }
}

/// A platform a copy set may hold texts for: the first word of a user's reported `platform`,
/// ignoring case (`"Android 14"` → `android`).
public enum CopyPlatform: String, Sendable, CaseIterable, Comparable {
    case ios
    case android

    /// The platform of a reported platform string; nil for none or any other.
    public init?(reported: String?) {
        guard let word = reported?.split(separator: " ", maxSplits: 1).first else { return nil }
        guard let platform = Self.allCases.first(where: { word.caseInsensitiveEquals($0.rawValue) }) else {
            return nil
        }
        self = platform
    }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}

extension StringProtocol {
    /// ASCII case-insensitive equality: BCP 47 tags are ASCII, and `lowercased()` would apply
    /// the process locale's rules.
    func caseInsensitiveEquals(_ other: some StringProtocol) -> Bool {
        utf8.caseInsensitiveEquals(other.utf8)
    }
}

extension Collection<UInt8> {
    /// ASCII case-insensitive equality of UTF-8 bytes.
    func caseInsensitiveEquals(_ other: some Collection<UInt8>) -> Bool {
        count == other.count
            && zip(self, other).allSatisfy { a, b in
                a == b || (a | 0x20 == b | 0x20 && (0x61...0x7A).contains(a | 0x20))
            }
    }
}
