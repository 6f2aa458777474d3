import RemindCore

extension DaemonConfiguration {
    /// The effective configuration, as `GET /v1/config` shows it: the file's shape with every
    /// default written out and unset optionals as `null`.
    ///
    /// Secrets never appear: the bearer token and webhook secrets are only referred to by their
    /// files (`tokenFile`, `secretFile`), which this type never reads, and webhook header values
    /// are redacted.
    public var json: JSONValue {
        .object([
            "notification": notification.json,
            "stateDirectory": .string(stateDirectory),
            "listen": listen.json,
            "schedule": schedule.json,
            "heartbeat": heartbeat.json,
            "history": history.json,
            "sinks": .array(sinks.map(\.json)),
            "services": ServiceDefinition.json(services),
            "experiment": experiment.json,
            "storage": storage.json,
            "console": console.json,
            "inApp": inApp.json,
            "fallback": fallback.json,
        ])
    }
}
