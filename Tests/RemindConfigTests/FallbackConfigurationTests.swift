import RemindConfig
import RemindCore
import Testing

/// `sinks[].role` and `fallback` (docs/fallback.md): what the channel decision and the outbox's
/// routing get, and every refusal naming its key path.
struct FallbackConfigurationTests {
    let key = #""keyFile":"/k.p8","keyID":"ABC123DEFG","teamID":"DEF123GHIJ","topic":"com.example.app""#

    @Test func rolesAndSilenceMakeTheChannels() throws {
        let configuration = try parse(
            #"{"sinks":[{"type":"journal"},{"type":"apns",\#(key)},{"type":"webhook","name":"mail","role":"fallback","url":"https://mail.example/hook"}],"fallback":{"silentAfterSeconds":86400}}"#
        )
        let channels = configuration.policy.channels
        #expect(channels.pushSinks == ["apns": .apns])
        #expect(channels.fallbackSinks == ["mail"])
        #expect(channels.silentAfterSeconds == 86_400)
        #expect(configuration.sinks.map(\.role) == [.always, .always, .fallback])
    }

    /// Absent, 30 days; `null`, never; and the effective configuration reads back the same.
    @Test func silenceDefaultsAndNull() throws {
        #expect(try parse("{}").fallback.silentAfterSeconds == 2_592_000)
        let never = try parse(#"{"fallback":{"silentAfterSeconds":null}}"#)
        #expect(never.fallback.silentAfterSeconds == nil)
        #expect(never.json.serialized.contains(#""fallback":{"silentAfterSeconds":null}"#))
        #expect(try DaemonConfiguration(json: never.json) == never)
    }

    @Test(arguments: [
        (#"{"sinks":[{"type":"journal","role":"sometimes"}]}"#, "sinks[0].role"),
        (#"{"sinks":[{"type":"journal","role":1}]}"#, "sinks[0].role"),
        (#"{"fallback":{"silentAfterSeconds":0}}"#, "fallback.silentAfterSeconds"),
        (#"{"fallback":{"silentAfterSeconds":"30d"}}"#, "fallback.silentAfterSeconds"),
        (#"{"fallback":{"after":1}}"#, "fallback.after"),
        (#"{"fallback":[]}"#, "fallback"),
    ])
    func badInputNamesTheKeyPath(_ text: String, _ field: String) {
        #expect(refusal(text)?.field == field)
    }

    /// A push sink is what the fallback stands in for: it cannot be one.
    @Test func aPushSinkCannotBeAFallback() {
        let error = refusal(#"{"sinks":[{"type":"apns","role":"fallback",\#(key)}]}"#)
        #expect(error?.field == "sinks[0].role")
        #expect(error?.reason.contains("push sink cannot be a fallback") == true)
    }
}
