import Foundation
import RemindConfig
import RemindCore
import Testing

struct DefaultsTests {
    /// An empty object is every documented default, with the journal as the only sink.
    @Test func emptyObjectGivesEveryDefault() throws {
        let configuration = try parse("{}")
        #expect(configuration == DaemonConfiguration())
        #expect(configuration.notification == LocationNotificationConfiguration())
        #expect(configuration.stateDirectory == "/var/lib/remindd")
        #expect(configuration.listen == ListenConfiguration(socket: "/run/remindd/remindd.sock"))
        #expect(configuration.schedule == ScheduleConfiguration())
        #expect(configuration.heartbeat.intervalSeconds == nil)
        #expect(configuration.history.maxEntries == 1000)
        #expect(configuration.sinks == [SinkConfiguration(name: "journal", kind: .journal)])
        #expect(
            configuration.sinks[0].retry
                == RetryPolicy(initialBackoffSeconds: 1, maxBackoffSeconds: 3600, maxAttempts: 12))
        #expect(configuration.sinks[0].rateLimit == RateLimit(ratePerSecond: nil, burst: nil))
    }

    /// The shipped `etc/remindd/remindd.json` documents exactly the defaults of the system preset.
    @Test func shippedConfigurationFileEqualsTheDefaults() throws {
        let configuration = try ConfigurationLoader.load(
            path: packageRoot + "/etc/remindd/remindd.json", environment: [:], stateDirectoryFlag: nil,
            socketFlag: nil, defaults: .system)
        #expect(configuration == DaemonConfiguration(defaults: .system))
    }

    /// The shipped sink example is valid and fans out to all four kinds, the webhook with its
    /// concurrency and rate limit.
    @Test func shippedSinkExampleIsValid() throws {
        let configuration = try ConfigurationLoader.load(
            path: packageRoot + "/etc/remindd/sinks.example.json", environment: [:], stateDirectoryFlag: nil,
            socketFlag: nil, defaults: .system)
        #expect(configuration.sinks.map(\.type) == [.journal, .file, .exec, .exec, .webhook])
        #expect(configuration.sinks.map(\.name) == ["journal", "archive", "desktop", "apprise", "push"])
        guard case .webhook(let hook) = configuration.sinks[4].kind else {
            throw ValidationError(field: "", reason: "")
        }
        #expect(hook.maxConcurrency == 8)
        #expect(configuration.sinks[4].rateLimit == RateLimit(ratePerSecond: 200, burst: 400))
    }

    /// The shipped push example is valid: both push sinks with every key of docs/push.md, and a
    /// webhook as the fallback for the users they cannot reach (docs/fallback.md).
    @Test func shippedPushExampleIsValid() throws {
        let configuration = try ConfigurationLoader.load(
            path: packageRoot + "/etc/remindd/push.example.json", environment: [:], stateDirectoryFlag: nil,
            socketFlag: nil, defaults: .system)
        #expect(configuration.sinks.map(\.type) == [.journal, .apns, .fcm, .webhook])
        #expect(configuration.sinks.map(\.name) == ["journal", "apns", "fcm", "mail"])
        #expect(configuration.sinks.map(\.role) == [.always, .always, .always, .fallback])
        #expect(configuration.heartbeat.intervalSeconds == 21_600)
    }

    /// The shipped copy and services example is valid: two languages, texts per reason, three
    /// services.
    @Test func shippedCopyAndServicesExampleIsValid() throws {
        let configuration = try ConfigurationLoader.load(
            path: packageRoot + "/etc/remindd/copy-and-services.example.json", environment: [:],
            stateDirectoryFlag: nil, socketFlag: nil, defaults: .system)
        #expect(configuration.services.map(\.name) == ["cycling", "driving", "walking"])
        let copy = configuration.notification.copy
        #expect(
            copy.resolve(reason: .preciseLocationNotEnabled, locale: "de-AT")
                == ("Die App kann keine Fahrten aufzeichnen", "Bitte schalte „Genauer Standort“ ein."))
        #expect(
            copy.resolve(reason: .locationServicesTurnedOff, locale: "fr-CA")
                == (
                    "L’app ne peut pas enregistrer vos trajets",
                    "Veuillez autoriser l’accès à la position « Toujours »."
                ))
        #expect(
            copy.resolve(reason: .locationServicesTurnedOff, locale: "en-GB")
                == ("App is unable to record trips", "Turn on Location Services in Settings."))
    }

    /// Keys explicitly set to null mean their default, so the effective JSON reads back unchanged.
    @Test func nullMembersMeanTheirDefault() throws {
        let text =
            #"{"notification":null,"stateDirectory":null,"listen":{"socket":null},"sinks":null,"#
            + #""history":{"maxEntries":null}}"#
        #expect(try parse(text) == DaemonConfiguration())
    }

    /// The policy view carries every scheduling setting over to RemindCore's configuration.
    @Test func policyMapsEverySetting() throws {
        let configuration = try parse(
            #"""
            {"notification":{"showRecurringNotification":true,"notificationTriggerDelay":60},
             "schedule":{"catchUpSpreadSeconds":30,"quietHours":{"start":"21:00","end":"08:00"},
                         "jitterSeconds":5,"maxRemindersPerEpisode":3},
             "heartbeat":{"intervalSeconds":21600},"history":{"maxEntries":50}}
            """#)
        let expected = PolicyConfiguration(
            notification: LocationNotificationConfiguration(
                showRecurringNotification: true, notificationTriggerDelay: 60),
            catchUpSpreadSeconds: 30,
            quietHours: QuietHours(start: 21 * 60, end: 8 * 60),
            jitterSeconds: 5,
            maxRemindersPerEpisode: 3,
            heartbeatIntervalSeconds: 21600,
            historyMaxEntries: 50
        )
        #expect(configuration.policy == expected)
    }

    /// The first-run preset uses the XDG directories when they are set and absolute.
    @Test func firstRunUsesXDGDirectoriesWhenSet() {
        let defaults = ConfigurationLoader.Defaults.firstRun(
            environment: ["XDG_STATE_HOME": "/home/a/.local/state", "XDG_RUNTIME_DIR": "/run/user/1000"],
            currentDirectory: "/home/a/src")
        #expect(defaults.stateDirectory == "/home/a/.local/state/remindd")
        #expect(defaults.socket == "/run/user/1000/remindd.sock")
        #expect(defaults.configurationPath == "/etc/remindd/remindd.json")
    }

    /// Without XDG directories (or with relative ones, which the spec says to ignore) the
    /// first-run preset stays in the current directory.
    @Test func firstRunFallsBackToCurrentDirectoryWithoutXDG() {
        for environment in [[:], ["XDG_STATE_HOME": "state", "XDG_RUNTIME_DIR": ""]] {
            let defaults = ConfigurationLoader.Defaults.firstRun(
                environment: environment, currentDirectory: "/home/a/src")
            #expect(defaults.stateDirectory == "/home/a/src/.remindd")
            #expect(defaults.socket == "/home/a/src/remindd.sock")
        }
    }

    /// A systemd service (INVOCATION_ID) gets the system preset; a plain shell gets first-run.
    @Test func detectChoosesSystemUnderSystemdAndFirstRunOtherwise() {
        let service = ConfigurationLoader.Defaults.detect(
            environment: ["INVOCATION_ID": "0123abcd"], currentDirectory: "/")
        #expect(service == .system)
        let shell = ConfigurationLoader.Defaults.detect(environment: ["HOME": "/root"], currentDirectory: "/srv")
        #expect(shell == .firstRun(environment: [:], currentDirectory: "/srv"))
    }

    /// StateDirectory= and RuntimeDirectory= of the unit win over the system paths.
    @Test func detectUsesSystemdDirectoriesWhenSet() {
        let defaults = ConfigurationLoader.Defaults.detect(
            environment: [
                "STATE_DIRECTORY": "/var/lib/remindd-b:/var/lib/other", "RUNTIME_DIRECTORY": "/run/remindd-b",
            ],
            currentDirectory: "/")
        #expect(defaults.stateDirectory == "/var/lib/remindd-b")
        #expect(defaults.socket == "/run/remindd-b/remindd.sock")
    }
}
