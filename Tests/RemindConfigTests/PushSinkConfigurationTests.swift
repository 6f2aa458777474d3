import RemindConfig
import RemindCore
import Testing

/// The `apns` and `fcm` sink types (docs/push.md): required keys, defaults, strictness.
struct PushSinkConfigurationTests {
    static let apns =
        #"{"type":"apns","keyFile":"/etc/remindd/AuthKey_ABC123DEFG.p8","keyID":"ABC123DEFG","teamID":"DEF123GHIJ","topic":"com.example.app""#

    @Test func apnsReadsItsKeysWithDefaults() throws {
        let configuration = try parse(#"{"sinks":[\#(Self.apns)}]}"#)
        #expect(configuration.sinks[0].name == "apns")
        #expect(
            configuration.sinks[0].kind
                == .apns(
                    APNsSinkConfiguration(
                        keyFile: "/etc/remindd/AuthKey_ABC123DEFG.p8", keyID: "ABC123DEFG", teamID: "DEF123GHIJ",
                        topic: "com.example.app", expirationSeconds: 86_400,
                        settings: PushSinkSettings(
                            url: nil, caFile: nil, timeoutSeconds: 10, maxConcurrency: 64, settingsURL: "app-settings:",
                            backgroundPushesPerHour: 3))))
    }

    @Test func fcmReadsItsKeysWithDefaults() throws {
        let configuration = try parse(
            #"{"sinks":[{"type":"fcm","serviceAccountFile":"/etc/remindd/fcm.json","url":"https://127.0.0.1:8443","#
                + #""caFile":"/tmp/ca.pem","maxConcurrency":256,"settingsURL":"myapp://settings","#
                + #""backgroundPushesPerHour":0}]}"#)
        #expect(
            configuration.sinks[0].kind
                == .fcm(
                    FCMSinkConfiguration(
                        serviceAccountFile: "/etc/remindd/fcm.json",
                        settings: PushSinkSettings(
                            url: "https://127.0.0.1:8443", caFile: "/tmp/ca.pem", timeoutSeconds: 10,
                            maxConcurrency: 256, settingsURL: "myapp://settings", backgroundPushesPerHour: 0))))
    }

    @Test(arguments: [
        (#"{"type":"apns","keyID":"ABC123DEFG","teamID":"DEF123GHIJ","topic":"com.example.app"}"#, "sinks[0].keyFile"),
        (#"{"type":"apns","keyFile":"/k.p8","teamID":"DEF123GHIJ","topic":"com.example.app"}"#, "sinks[0].keyID"),
        (#"{"type":"apns","keyFile":"/k.p8","keyID":"ABC123DEFG","topic":"com.example.app"}"#, "sinks[0].teamID"),
        (#"{"type":"apns","keyFile":"/k.p8","keyID":"ABC123DEFG","teamID":"DEF123GHIJ"}"#, "sinks[0].topic"),
        (#"{"type":"apns","keyFile":"/k.p8","keyID":"ABC 123","teamID":"DEF123GHIJ","topic":"a"}"#, "sinks[0].keyID"),
        (#"{"type":"apns","keyFile":"/k.p8","keyID":"A","teamID":"B","topic":"has space"}"#, "sinks[0].topic"),
        (#"\#(apns),"url":"ftp://x"}"#, "sinks[0].url"),
        (#"\#(apns),"url":"https://x/"}"#, "sinks[0].url"),
        (#"\#(apns),"maxConcurrency":0}"#, "sinks[0].maxConcurrency"),
        (#"\#(apns),"backgroundPushesPerHour":-1}"#, "sinks[0].backgroundPushesPerHour"),
        (#"\#(apns),"expirationSeconds":"1d"}"#, "sinks[0].expirationSeconds"),
        (#"\#(apns),"timeoutSeconds":0}"#, "sinks[0].timeoutSeconds"),
        (#"\#(apns),"serviceAccountFile":"/x"}"#, "sinks[0].serviceAccountFile"),
        (#"{"type":"fcm"}"#, "sinks[0].serviceAccountFile"),
        (#"{"type":"fcm","serviceAccountFile":"/x","keyID":"A"}"#, "sinks[0].keyID"),
        (#"{"type":"fcm","serviceAccountFile":""}"#, "sinks[0].serviceAccountFile"),
    ])
    func badPushSinksAreRefusedNamingTheKey(sink: String, field: String) {
        let error = refusal(#"{"sinks":[\#(sink)]}"#)
        #expect(error?.field == field, "\(sink): \(String(describing: error))")
    }

    /// The effective configuration shows every key with its default, the key's path but never
    /// a key.
    @Test func effectiveConfigurationShowsEveryKey() throws {
        let configuration = try parse(#"{"sinks":[\#(Self.apns)},{"type":"fcm","serviceAccountFile":"/f.json"}]}"#)
        let apns = configuration.sinks[0].json.serialized
        #expect(
            apns
                == #"{"type":"apns","name":"apns","role":"always","keyFile":"/etc/remindd/AuthKey_ABC123DEFG.p8","keyID":"ABC123DEFG","teamID":"DEF123GHIJ","topic":"com.example.app","expirationSeconds":86400,"url":null,"caFile":null,"timeoutSeconds":10,"maxConcurrency":64,"settingsURL":"app-settings:","backgroundPushesPerHour":3,"retry":{"initialBackoffSeconds":1,"maxBackoffSeconds":3600,"maxAttempts":12},"rateLimit":{"ratePerSecond":null,"burst":null}}"#
        )
        #expect(configuration.sinks[1].json.serialized.contains(#""settingsURL":null"#))
    }
}
