/// The words of a reminder: a title and a body per reason and per language (docs/configuration.md).
///
/// The `notification` block of the configuration is the copy set of the `default` variant;
/// an experiment variant is a whole copy set of its own, so a user in a variant never gets
/// another set's texts. Any text may be absent at any level: `resolve` falls back through the
/// levels to Zendrive's default.
public struct CopySet: Sendable, Equatable {
    /// A title and a body, either of which may be absent.
    public struct Texts: Sendable, Equatable {
        public var notificationTitle: String?
        public var notificationDescription: String?

        public init(notificationTitle: String? = nil, notificationDescription: String? = nil) {
            self.notificationTitle = notificationTitle
            self.notificationDescription = notificationDescription
        }
    }

    /// The texts for one language tag, with their own texts per reason.
    public struct Localization: Sendable, Equatable {
        public var notificationTitle: String?
        public var notificationDescription: String?
        public var byReason: [PermissionErrorType: Texts]

        public init(
            notificationTitle: String? = nil, notificationDescription: String? = nil,
            byReason: [PermissionErrorType: Texts] = [:]
        ) {
            self.notificationTitle = notificationTitle
            self.notificationDescription = notificationDescription
            self.byReason = byReason
        }
    }

    public var notificationTitle: String?
    public var notificationDescription: String?
    public var byReason: [PermissionErrorType: Texts]
    /// BCP 47 tag → texts; tags are unique ignoring case and matched ignoring case.
    public var localizations: [String: Localization]

    public init(
        notificationTitle: String? = nil, notificationDescription: String? = nil,
        byReason: [PermissionErrorType: Texts] = [:], localizations: [String: Localization] = [:]
    ) {
        self.notificationTitle = notificationTitle
        self.notificationDescription = notificationDescription
        self.byReason = byReason
        self.localizations = localizations
    }

    /// The title and body of a reminder with `reason` to a user whose locale is `locale`.
    ///
    /// Each text is, independently, the first found of: the localization's `byReason[reason]`,
    /// the localization's own text, the set's `byReason[reason]`, the set's text, and Zendrive's
    /// default. The localization is the one whose tag equals `locale` ignoring case, else the
    /// one named by its language subtag (`de-CH` → `de`).
    public func resolve(reason: PermissionErrorType, locale: String?) -> (title: String, body: String) {
        let localization = locale.flatMap(localization(for:))
        let title =
            localization?.byReason[reason]?.notificationTitle ?? localization?.notificationTitle
            ?? byReason[reason]?.notificationTitle ?? notificationTitle
            ?? LocationNotificationConfiguration.defaultTitle
        let body =
            localization?.byReason[reason]?.notificationDescription ?? localization?.notificationDescription
            ?? byReason[reason]?.notificationDescription ?? notificationDescription
            ?? LocationNotificationConfiguration.defaultDescription
        return (title, body)
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

extension StringProtocol {
    /// ASCII case-insensitive equality: BCP 47 tags are ASCII, and `lowercased()` would apply
    /// the process locale's rules.
    func caseInsensitiveEquals(_ other: some StringProtocol) -> Bool {
        utf8.count == other.utf8.count
            && zip(utf8, other.utf8).allSatisfy { a, b in
                a == b || (a | 0x20 == b | 0x20 && (0x61...0x7A).contains(a | 0x20))
            }
    }
}
