/// Everything the reminder policy depends on: the notification itself, when reminders may go
/// out, heartbeats and how much history each user keeps.
public struct PolicyConfiguration: Sendable, Equatable {
    public var notification: LocationNotificationConfiguration
    /// Reminders that came due while the daemon was down are spread over this many seconds
    /// after start-up, so a long outage cannot flood the sink.
    public var catchUpSpreadSeconds: Int64
    public var quietHours: QuietHours?
    /// A fixed per-user offset in `0..<jitterSeconds` added to the first due time of each
    /// episode (later ones follow from their delivery), so users who started together are not
    /// reminded in the same second.
    public var jitterSeconds: Int64
    /// Delivered reminders after which a recurring series ends; nil is unlimited.
    public var maxRemindersPerEpisode: Int?
    /// Silence after which a user gets a `heartbeat` event, once per interval; nil is off.
    public var heartbeatIntervalSeconds: Int64?
    public var historyMaxEntries: Int
    /// Closed episodes kept per user (with their deliveries) for support; older ones drop.
    public var closedEpisodesKept: Int
    /// The services whose state each user's permissions decide (docs/configuration.md), by name.
    public var services: [ServiceDefinition]
    /// The holdout and copy variants (docs/outcomes.md).
    public var experiment: Experiment
    /// The hour of day most users are most active in, learned by the daemon: the send time of
    /// users with too few reports of their own (`notification.sendTime`).
    public var populationActiveHour: Int?
    /// When answers carry an ask (docs/in-app.md).
    public var inApp: InAppConfiguration
    /// Which sinks are push sinks and which are fallbacks, and when a silent app falls back
    /// (docs/fallback.md): the channel each reminder takes and where the outbox routes events.
    public var channels: ChannelConfiguration

    public init(
        notification: LocationNotificationConfiguration = .init(),
        catchUpSpreadSeconds: Int64 = 0,
        quietHours: QuietHours? = nil,
        jitterSeconds: Int64 = 0,
        maxRemindersPerEpisode: Int? = nil,
        heartbeatIntervalSeconds: Int64? = nil,
        historyMaxEntries: Int = 1000,
        closedEpisodesKept: Int = 20,
        services: [ServiceDefinition] = [],
        experiment: Experiment = Experiment(),
        populationActiveHour: Int? = nil,
        inApp: InAppConfiguration = InAppConfiguration(),
        channels: ChannelConfiguration = ChannelConfiguration()
    ) {
        self.inApp = inApp
        self.channels = channels
        self.populationActiveHour = populationActiveHour
        self.experiment = experiment
        self.services = services
        self.notification = notification
        self.catchUpSpreadSeconds = catchUpSpreadSeconds
        self.quietHours = quietHours
        self.jitterSeconds = jitterSeconds
        self.maxRemindersPerEpisode = maxRemindersPerEpisode
        self.heartbeatIntervalSeconds = heartbeatIntervalSeconds
        self.historyMaxEntries = historyMaxEntries
        self.closedEpisodesKept = closedEpisodesKept
    }
}
