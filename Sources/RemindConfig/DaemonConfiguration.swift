import RemindCore

/// The daemon's whole configuration: the file of docs/configuration.md with every default filled in.
///
/// It is read with RemindCore's strict `JSONObjectReader` rather than `Codable` because a
/// configuration must refuse what it does not understand — unknown keys, wrong types, duplicate
/// keys — and say exactly where (`sinks[1].retry.maxAttempts`), which synthesised decoding does
/// not do. Every key is optional; `null` means "the default", so the effective configuration
/// (`json`, which writes unset optionals as `null`) reads back as the same configuration.
public struct DaemonConfiguration: Sendable, Equatable {
    public var notification: LocationNotificationConfiguration
    public var stateDirectory: String
    public var listen: ListenConfiguration
    public var schedule: ScheduleConfiguration
    public var heartbeat: HeartbeatConfiguration
    public var history: HistoryConfiguration
    /// Never empty; names are unique.
    public var sinks: [SinkConfiguration]
    /// What each user's permissions break (docs/configuration.md), sorted by name.
    public var services: [ServiceDefinition] = []
    /// The holdout and copy variants (docs/outcomes.md).
    public var experiment = Experiment()
    /// Where the state lives: the state directory (default) or a shared PostgreSQL database.
    public var storage = StorageConfiguration()
    /// The web console at `/ui/`.
    public var console = ConsoleConfiguration()
    /// When answers to reports carry an ask (docs/in-app.md).
    public var inApp = InAppConfiguration()
    /// When a silent app's reminders go to the fallback sinks (docs/fallback.md).
    public var fallback = FallbackConfiguration()

    public init(
        notification: LocationNotificationConfiguration = .init(),
        stateDirectory: String = ConfigurationLoader.Defaults.system.stateDirectory,
        listen: ListenConfiguration = .init(),
        schedule: ScheduleConfiguration = .init(),
        heartbeat: HeartbeatConfiguration = .init(),
        history: HistoryConfiguration = .init(),
        sinks: [SinkConfiguration] = [.journal]
    ) {
        self.notification = notification
        self.stateDirectory = stateDirectory
        self.listen = listen
        self.schedule = schedule
        self.heartbeat = heartbeat
        self.history = history
        self.sinks = sinks
    }

    /// The configuration of an empty file: everything from `defaults`.
    public init(defaults: ConfigurationLoader.Defaults) {
        self.init(stateDirectory: defaults.stateDirectory, listen: ListenConfiguration(socket: defaults.socket))
    }

    /// Parses a configuration file's bytes. Malformed JSON is an error with an empty field and
    /// the byte offset (and line and column) where reading stopped.
    public init(
        parsing bytes: some Collection<UInt8>, defaults: ConfigurationLoader.Defaults = .system
    )
        throws(ValidationError)
    {
        let value: JSONValue
        do {
            value = try JSONParser.parse(bytes)
        } catch {
            let (line, column) = Self.position(of: error.offset, in: bytes)
            throw ValidationError(field: "", reason: "\(error.description) (line \(line), column \(column))")
        }
        try self.init(json: value, defaults: defaults)
    }

    /// Reads a parsed configuration document; `defaults` supply the state directory and socket
    /// when the document does not.
    public init(json: JSONValue, defaults: ConfigurationLoader.Defaults = .system) throws(ValidationError) {
        guard case .object(let object) = json else {
            throw ValidationError(field: "", reason: "the configuration must be a JSON object, got \(json.typeName)")
        }
        var reader = try JSONObjectReader.strict(object, path: "")
        self.init(defaults: defaults)
        if let section = try reader.strictObject("notification") {
            notification = try LocationNotificationConfiguration(object: section, path: "notification")
        }
        if let directory = try reader.path("stateDirectory") {
            stateDirectory = directory
        }
        if let section = try reader.strictObject("listen") {
            listen = try ListenConfiguration(object: section, defaultSocket: defaults.socket)
        }
        if let section = try reader.strictObject("schedule") {
            schedule = try ScheduleConfiguration(object: section)
        }
        if let section = try reader.strictObject("heartbeat") {
            heartbeat = try HeartbeatConfiguration(object: section)
        }
        if let section = try reader.strictObject("history") {
            history = try HistoryConfiguration(object: section)
        }
        if let elements = try reader.array("sinks") {
            sinks = try SinkConfiguration.list(elements)
        }
        if let section = try reader.object("services") {
            services = try ServiceDefinition.list(section)
        }
        if let section = try reader.strictObject("experiment") {
            experiment = try Experiment(object: section, path: "experiment")
        }
        if let section = try reader.strictObject("storage") {
            storage = try StorageConfiguration(object: section)
        }
        if let section = try reader.strictObject("console") {
            console = try ConsoleConfiguration(object: section)
        }
        if let section = try reader.strictObject("inApp") {
            inApp = try InAppConfiguration(object: section, path: "inApp")
        }
        if let section = try reader.strictObject("fallback") {
            fallback = try FallbackConfiguration(object: section)
        }
        try reader.rejectUnknownKeys(
            context:
                "(notification, stateDirectory, listen, schedule, heartbeat, history, sinks, services, experiment, storage, console, inApp, fallback)"
        )
    }

    /// What the reminder policy needs of this configuration.
    public var policy: PolicyConfiguration {
        PolicyConfiguration(
            notification: notification,
            catchUpSpreadSeconds: schedule.catchUpSpreadSeconds,
            quietHours: schedule.quietHours,
            jitterSeconds: schedule.jitterSeconds,
            maxRemindersPerEpisode: schedule.maxRemindersPerEpisode,
            heartbeatIntervalSeconds: heartbeat.intervalSeconds,
            historyMaxEntries: history.maxEntries,
            services: services,
            experiment: experiment,
            inApp: inApp,
            channels: channels
        )
    }

    /// The sinks' roles and push services, and `fallback`: where each reminder goes.
    public var channels: ChannelConfiguration {
        var pushSinks: [String: PushService] = [:]
        for sink in sinks {
            if let service = sink.pushService { pushSinks[sink.name] = service }
        }
        return ChannelConfiguration(
            pushSinks: pushSinks, fallbackSinks: Set(sinks.filter { $0.role == .fallback }.map(\.name)),
            silentAfterSeconds: fallback.silentAfterSeconds)
    }

    /// 1-based line and column of a byte offset, for people looking at the file in an editor.
    static func position(of offset: Int, in bytes: some Collection<UInt8>) -> (line: Int, column: Int) {
        var line = 1
        var column = 1
        for byte in bytes.prefix(offset) {
            if byte == UInt8(ascii: "\n") {
                line += 1
                column = 1
            } else {
                column += 1
            }
        }
        return (line, column)
    }
}
