import RemindConfig
import RemindCore
import Testing

struct EffectiveConfigurationTests {
    /// The defaults written out: the file's shape, sinks with name, retry and rate limit, nulls as null.
    @Test func effectiveJSONOfEmptyFileFillsEveryDefault() throws {
        let expected =
            #"{"notification":{"showRecurringNotification":false,"notificationTriggerDelay":604800,"#
            + #""notificationTitle":"App is unable to record trips","#
            + #""notificationDescription":"Please grant Always access for location.","#
            + #""remindFor":["locationServicesTurnedOff","locationNotAuthorizedAlways"],"byReason":{},"localizations":{},"#
            + #""sendTime":"due"},"#
            + #""stateDirectory":"/var/lib/remindd","#
            + #""listen":{"socket":"/run/remindd/remindd.sock","tcp":null,"tokenFile":null,"tokensFile":null,"tls":null},"#
            + #""schedule":{"catchUpSpreadSeconds":0,"quietHours":null,"jitterSeconds":0,"#
            + #""maxRemindersPerEpisode":null},"#
            + #""heartbeat":{"intervalSeconds":null},"history":{"maxEntries":1000},"#
            + #""sinks":[{"type":"journal","name":"journal","role":"always","#
            + #""retry":{"initialBackoffSeconds":1,"maxBackoffSeconds":3600,"maxAttempts":12},"#
            + #""rateLimit":{"ratePerSecond":null,"burst":null}}],"services":{},"#
            + #""experiment":{"holdoutPercent":0,"defaultWeight":1,"variants":[],"allocation":"fixed"},"#
            + #""storage":{"type":"files","url":null,"urlFile":null,"leaseSeconds":30,"poolSize":10,"parts":1},"#
            + #""console":{"enabled":true},"#
            + #""inApp":{"enabled":false,"maxPerEpisode":3,"minIntervalSeconds":86400,"afterSeconds":0},"#
            + #""fallback":{"silentAfterSeconds":2592000}}"#
        #expect(try parse("{}").json.serialized == expected)
    }

    /// Each sink type writes its own keys with their defaults between name and retry.
    @Test func effectiveJSONWritesEachSinkTypesDefaults() throws {
        let configuration = try parse(
            #"""
            {"sinks":[{"type":"file","path":"/a"},{"type":"exec","command":["/bin/cat"]},
                      {"type":"webhook","url":"https://example.com/h"}]}
            """#)
        let sinks = configuration.sinks.map(\.json.serialized)
        let tail =
            #""retry":{"initialBackoffSeconds":1,"maxBackoffSeconds":3600,"maxAttempts":12},"#
            + #""rateLimit":{"ratePerSecond":null,"burst":null}}"#
        #expect(sinks[0] == #"{"type":"file","name":"file","role":"always","path":"/a","# + tail)
        #expect(sinks[1] == #"{"type":"exec","name":"exec","role":"always","command":["/bin/cat"],"timeoutSeconds":10,"# + tail)
        #expect(
            sinks[2]
                == #"{"type":"webhook","name":"webhook","role":"always","url":"https://example.com/h","secretFile":null,"#
                + #""timeoutSeconds":10,"headers":{},"maxConcurrency":4,"# + tail)
    }

    /// The effective configuration reads back as the same configuration.
    @Test func effectiveJSONReadsBackUnchanged() throws {
        let configuration = try parse(
            #"""
            {"notification":{"showRecurringNotification":true,"notificationTriggerDelay":3600},
             "stateDirectory":"/srv/remindd","listen":{"tcp":"127.0.0.1:8650","tokenFile":"/etc/remindd/token"},
             "schedule":{"quietHours":{"start":"22:30","end":"07:00"},"jitterSeconds":600,"maxRemindersPerEpisode":5},
             "heartbeat":{"intervalSeconds":21600},"history":{"maxEntries":10},
             "sinks":[{"type":"file","path":"/a","retry":{"initialBackoffSeconds":0.25}},
                      {"type":"webhook","url":"https://example.com/h","secretFile":"/s","timeoutSeconds":2.5}]}
            """#)
        #expect(try parse(configuration.json.serialized) == configuration)
    }

    /// Secrets never appear: token and webhook secret files are named, never read, and header
    /// values are redacted.
    @Test func effectiveJSONNeverContainsSecretValues() throws {
        let directory = try TemporaryDirectory()
        let tokenSecret = "tok-9f86d081884c7d659a2feaa0c55ad015"
        let webhookSecret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
        let headerSecret = "Bearer hdr-2c26b46b68ffc68ff99b453c1d304134"
        let tokenFile = try directory.write("token", tokenSecret + "\n")
        let secretFile = try directory.write("webhook.secret", webhookSecret)
        let file = try directory.write(
            "remindd.json",
            #"{"listen":{"tcp":"127.0.0.1:8650","tokenFile":"\#(tokenFile)"},"#
                + #""sinks":[{"type":"webhook","url":"https://example.com/h","secretFile":"\#(secretFile)","#
                + #""headers":{"Authorization":"\#(headerSecret)"}}]}"#)
        let configuration = try ConfigurationLoader.load(
            path: file, environment: [:], stateDirectoryFlag: nil, socketFlag: nil, defaults: .system)
        let text = configuration.json.serialized
        #expect(text.contains(tokenFile))
        #expect(text.contains(secretFile))
        #expect(text.contains(#""headers":{"Authorization":"(redacted)"}"#))
        for secret in [tokenSecret, webhookSecret, headerSecret, "hdr-2c26b46b68ffc68ff99b453c1d304134"] {
            #expect(!text.contains(secret))
        }
        // The daemon still gets the header value itself.
        guard case .webhook(let webhook) = configuration.sinks[0].kind else {
            Issue.record("not a webhook sink")
            return
        }
        #expect(webhook.headers["Authorization"] == headerSecret)
    }
}

/// The in-app copy keys and `platforms` are read strictly, naming the key path.
struct InAppCopyConfigurationTests {
    @Test(arguments: [
        (#"{"notification":{"platforms":{"windows":{}}}}"#, "notification.platforms.windows"),
        (#"{"notification":{"platforms":{"ios":{"inAppTitel":"x"}}}}"#, "notification.platforms.ios.inAppTitel"),
        (#"{"notification":{"platforms":{"ios":{"platforms":{}}}}}"#, "notification.platforms.ios.platforms"),
        (#"{"notification":{"inAppButton":" "}}"#, "notification.inAppButton"),
        (
            #"{"notification":{"byReason":{"motionNotAuthorized":{"inAppLabel":"x"}}}}"#,
            "notification.byReason.motionNotAuthorized.inAppLabel"
        ),
        (#"{"experiment":{"variants":[{"name":"v","platforms":{"web":{}}}]}}"#, "experiment.variants[0].platforms.web"),
        (#"{"inApp":{"maxPerEpisode":0}}"#, "inApp.maxPerEpisode"),
        (#"{"inApp":{"enabled":true,"every":1}}"#, "inApp.every"),
    ])
    func badCopyIsRefusedNamingTheKeyPath(json: String, field: String) {
        #expect {
            try DaemonConfiguration(parsing: Array(json.utf8))
        } throws: { error in
            (error as? ValidationError)?.field == field
        }
    }

    @Test func platformsAndInAppTextsAreKeptAndShown() throws {
        let json =
            #"{"notification":{"inAppTitle":"Keep trips","platforms":{"android":{"inAppButton":"Open","localizations":{"de":{"inAppButton":"Öffnen"}}}}},"#
            + #""experiment":{"variants":[{"name":"v","inAppBody":"Variant body","platforms":{"ios":{"notificationTitle":"iOS"}}}]}}"#
        let configuration = try DaemonConfiguration(parsing: Array(json.utf8))
        let copy = configuration.notification.copy
        #expect(copy.texts[.inAppTitle] == "Keep trips")
        #expect(copy.platforms[.android]?.localizations["de"]?.texts[.inAppButton] == "Öffnen")
        #expect(configuration.experiment.variants[0].copy.platforms[.ios]?.notificationTitle == "iOS")
        let shown = configuration.json.serialized
        #expect(
            shown.contains(#""inAppTitle":"Keep trips""#)
                && shown.contains(#""platforms":{"android":{"inAppButton":"Open""#))
        #expect(shown.contains(#""inAppBody":"Variant body""#))
        // What is shown reads back as the same configuration.
        #expect(
            try DaemonConfiguration(json: try JSONParser.parse(Array(shown.utf8))).notification
                == configuration.notification)
    }
}
