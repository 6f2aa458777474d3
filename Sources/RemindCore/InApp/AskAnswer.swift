/// An ask as the answer to a report carries it (docs/in-app.md): what the app shows, worded
/// for the user's reason, locale, platform and experiment group.
///
/// `{"id","action","page","reason","group","title","body","button"}`, `page` null for a prompt.
public struct AskAnswer: Sendable, Equatable {
    public var ask: Ask
    public var group: String
    public var title: String
    public var body: String
    public var button: String

    /// The answer for `ask`, just given in the open episode of `record`, worded by `policy`.
    public init(_ ask: Ask, of record: UserRecord, policy: ReminderPolicy) {
        let configuration = policy.configuration
        let group =
            record.episodes.first(where: { $0.asks.contains { $0.id == ask.id } })?.group ?? Experiment.defaultGroup
        let texts = configuration.experiment.copy(for: group, fallback: configuration.notification.copy)
            .resolveAsk(
                reason: ask.reason, locale: record.device.locale, platform: CopyPlatform(reported: record.platform),
                action: ask.action)
        self.ask = ask
        self.group = group
        (title, body, button) = texts
    }

    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.member("id", ask.id)
        writer.member("action", ask.action.rawValue)
        writer.member("page", ask.page?.rawValue)
        writer.member("reason", ask.reason.rawValue)
        writer.member("group", group)
        writer.member("title", title)
        writer.member("body", body)
        writer.member("button", button)
        writer.endObject()
    }

    public var jsonBytes: [UInt8] {
        var writer = JSONWriter(reservingCapacity: 256)
        write(to: &writer)
        return writer.bytes
    }
}
