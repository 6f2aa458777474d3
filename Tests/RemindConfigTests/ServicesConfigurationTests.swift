import RemindConfig
import RemindCore
import Testing

/// `services` (docs/configuration.md) and the new `notification` keys, as the daemon and `remindctl config
/// check` read them.
struct ServicesConfigurationTests {
    /// A valid `services` object is read sorted by name, with `optional` defaulting to none,
    /// and shown back by the effective configuration.
    @Test func servicesAreReadAndShown() throws {
        let configuration = try parse(
            #"{"services":{"walking":{"requires":["motion"]},"driving":{"requires":["location","always"],"optional":["precise","motion"]}}}"#
        )
        #expect(
            configuration.services == [
                ServiceDefinition(name: "driving", requires: [.location, .always], optional: [.precise, .motion]),
                ServiceDefinition(name: "walking", requires: [.motion]),
            ])
        #expect(configuration.policy.services == configuration.services)
        guard case .object(let json) = configuration.json else {
            Issue.record("the effective configuration is not a JSON object")
            return
        }
        #expect(
            json["services"]?.serialized
                == #"{"driving":{"requires":["location","always"],"optional":["precise","motion"]},"walking":{"requires":["motion"],"optional":[]}}"#
        )
        #expect(try DaemonConfiguration(json: configuration.json) == configuration)
    }

    /// Bad services are refused naming the key path: the name, an empty or absent `requires`,
    /// an unknown condition, a condition twice, an unknown key.
    @Test(arguments: [
        (#"{"services":{"Driving":{"requires":["location"]}}}"#, "services.Driving"),
        (#"{"services":{"":{"requires":["location"]}}}"#, "services."),
        (#"{"services":{"a.b":{"requires":["location"]}}}"#, "services.a.b"),
        (
            #"{"services":{"\#(String(repeating: "x", count: 65))":{"requires":["location"]}}}"#,
            "services.\(String(repeating: "x", count: 65))"
        ),
        (#"{"services":{"driving":{"requires":[]}}}"#, "services.driving.requires"),
        (#"{"services":{"driving":{"optional":["motion"]}}}"#, "services.driving.requires"),
        (#"{"services":{"driving":{"requires":["gps"]}}}"#, "services.driving.requires[0]"),
        (
            #"{"services":{"driving":{"requires":["always"],"optional":["precise","wifi"]}}}"#,
            "services.driving.optional[1]"
        ),
        (#"{"services":{"driving":{"requires":["always","always"]}}}"#, "services.driving.requires[1]"),
        (#"{"services":{"driving":{"requires":["always"],"optional":["always"]}}}"#, "services.driving.optional"),
        (#"{"services":{"driving":{"requires":["always"],"needs":[]}}}"#, "services.driving.needs"),
        (#"{"services":{"driving":["always"]}}"#, "services.driving"),
        (#"{"services":[]}"#, "services"),
        (#"{"notification":{"remindFor":["notificationsTurnedOff"]}}"#, "notification.remindFor[0]"),
        (#"{"notification":{"remindFor":["locationOff"]}}"#, "notification.remindFor[0]"),
        (
            #"{"notification":{"localizations":{"de":{"notificationBody":"x"}}}}"#,
            "notification.localizations.de.notificationBody"
        ),
    ])
    func badServicesAreRefusedNamingTheKeyPath(_ text: String, _ field: String) {
        let error = refusal(text)
        #expect(error?.field == field, "\(text)")
        #expect(error?.reason.isEmpty == false)
    }

    /// The refusal of `notificationsTurnedOff` says why.
    @Test func notificationsTurnedOffIsRefusedWithTheReason() {
        let error = refusal(#"{"notification":{"remindFor":["locationNotAuthorizedAlways","notificationsTurnedOff"]}}"#)
        #expect(error?.field == "notification.remindFor[1]")
        #expect(error?.reason.contains("notifications are off") == true)
    }
}
