import Foundation

/// The user file's `device` object:
/// `{"locale":"de-CH","push":{"service":"apns","token":"…","environment":"production",
/// "unreachableReason":null,"unreachableSince":null}}`. Unlike answers, the file holds the
/// whole token: the push sinks read it from here.
extension DeviceState {
    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.member("locale", locale)
        writer.key("push")
        if let push {
            writer.beginObject()
            writer.member("service", push.service.rawValue)
            writer.member("token", push.token)
            writer.member("environment", push.environment?.rawValue)
            writer.member("unreachableReason", push.unreachable?.reason)
            writer.member("unreachableSince", push.unreachable.map { RFC3339.format($0.since) })
            writer.endObject()
        } else {
            writer.null()
        }
        // Only when reported, so that the files of users whose apps never send it stay as
        // they were.
        if !canPrompt.isEmpty { writer.member("canPrompt", strings: canPrompt.map(\.rawValue)) }
        writer.endObject()
    }

    /// Reads the file's `device` object (not a report: no length rules, a stored token was
    /// validated when it arrived).
    public init(fileObject object: JSONObject, path: String) throws(ValidationError) {
        var reader = JSONObjectReader(object, path: path)
        let locale = try reader.string("locale")
        var push: PushAddress?
        if let pushObject = try reader.object("push") {
            var pushReader = JSONObjectReader(pushObject, path: "\(path).push")
            guard let service = try pushReader.enumeration("service", PushService.self),
                let token = try pushReader.string("token")
            else { throw ValidationError(field: "\(path).push", reason: "needs service and token") }
            let environment = try pushReader.enumeration("environment", APNsEnvironment.self)
            var unreachable: PushAddress.Unreachable?
            if let reason = try pushReader.string("unreachableReason") {
                guard let text = try pushReader.string("unreachableSince"), let since = RFC3339.parse(text) else {
                    throw ValidationError(
                        field: "\(path).push.unreachableSince", reason: "must be an RFC 3339 timestamp")
                }
                unreachable = .init(reason: reason, since: since)
            }
            push = PushAddress(service: service, token: token, environment: environment, unreachable: unreachable)
        }
        let canPrompt = try PromptablePermission.list(reader.array("canPrompt") ?? [], field: "\(path).canPrompt")
        self.init(locale: locale, push: push, canPrompt: canPrompt)
    }
}
