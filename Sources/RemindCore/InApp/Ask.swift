import Foundation

/// A screen the app was told to show (an "ask", docs/in-app.md): given in the answer to one of
/// the user's reports while an episode is open, and kept in that episode with what the user
/// did with it.
///
/// An ask is durable once an answer carried it, whether or not the app showed it: it counts
/// against the episode's cap and interval, and the app may later report it shown, accepted or
/// dismissed by its `id` (`EngagementEvent`), each at most once.
public struct Ask: Sendable, Equatable {
    /// What the app should do for the reason.
    public enum Action: String, Sendable, CaseIterable {
        /// Show the system's own dialog: the app can still ask for the permission.
        case prompt
        /// Send the user to a Settings page (`Page`).
        case settings
    }

    /// The Settings page a `settings` ask opens.
    public enum Page: String, Sendable, CaseIterable {
        /// The app's own page (iOS `openSettingsURLString`, Android
        /// `ACTION_APPLICATION_DETAILS_SETTINGS`).
        case app
        /// The system's location settings (location services are off for every app).
        case locationServices
    }

    /// `<userID>/<episode start, epoch seconds>/a<number>`: unique per user, and it names its user.
    public var id: String
    /// 1 for the episode's first ask.
    public var number: Int
    /// The receive time of the report whose answer carried it.
    public var givenAt: Date
    public var action: Action
    /// The page of a `settings` ask; nil for `prompt`.
    public var page: Page?
    /// The reason it was given for: the user's current reason then.
    public var reason: PermissionErrorType
    /// When the app reported the user saw it, accepted it (tapped its button) or dismissed it.
    public var shownAt: Date?
    public var acceptedAt: Date?
    public var dismissedAt: Date?

    public init(
        id: String, number: Int, givenAt: Date, action: Action, page: Page?, reason: PermissionErrorType,
        shownAt: Date? = nil, acceptedAt: Date? = nil, dismissedAt: Date? = nil
    ) {
        self.id = id
        self.number = number
        self.givenAt = givenAt
        self.action = action
        self.page = page
        self.reason = reason
        self.shownAt = shownAt
        self.acceptedAt = acceptedAt
        self.dismissedAt = dismissedAt
    }

    /// The ID of the `number`th ask of the user's episode that started at `episodeStartedAt`.
    public static func id(userID: UserID, episodeStartedAt: Date, number: Int) -> String {
        "\(userID.rawValue)/\(episodeStartedAt.unixSeconds)/a\(number)"
    }

    /// What to ask for `reason`, given the permissions whose dialog the app can still show: the
    /// system's dialog while it can, else the Settings page that fixes the reason.
    public static func screen(
        for reason: PermissionErrorType, canPrompt: [PromptablePermission]
    ) -> (action: Action, page: Page?) {
        if let permission = PromptablePermission(promptingFor: reason), canPrompt.contains(permission) {
            return (.prompt, nil)
        }
        return (.settings, reason == .locationServicesTurnedOff ? .locationServices : .app)
    }
}

extension PromptablePermission {
    /// The permission whose dialog fixes `reason`; nil for a reason no app dialog fixes
    /// (location services are a system switch).
    public init?(promptingFor reason: PermissionErrorType) {
        switch reason {
        case .locationNotAuthorizedAlways: self = .location
        case .preciseLocationNotEnabled: self = .accuracy
        case .motionNotAuthorized: self = .motion
        case .notificationsTurnedOff: self = .notifications
        case .locationServicesTurnedOff: return nil
        }
    }
}
