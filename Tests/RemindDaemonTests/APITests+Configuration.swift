import Foundation
import HummingbirdTesting
import RemindConfig
import RemindCore
import Testing

extension APITests {
    /// `/v1/config` is the effective configuration: the file's shape with every default filled in.
    @Test func configShowsEveryDefault() async throws {
        try await withAPI { api, client in
            let response = try await client.get("/v1/config")
            #expect(response.status == .ok)
            try expectJSON(
                response,
                equals: """
                    {"notification":{"showRecurringNotification":false,"notificationTriggerDelay":604800,
                                     "notificationTitle":"App is unable to record trips",
                                     "notificationDescription":"Please grant Always access for location.",
                                     "remindFor":["locationServicesTurnedOff","locationNotAuthorizedAlways"],
                                     "byReason":{},"localizations":{},"sendTime":"due"},
                     "stateDirectory":"\(api.stateDirectory)",
                     "listen":{"socket":"\(api.root)/s.sock","tcp":null,"tokenFile":null,"tokensFile":null,"tls":null},
                     "schedule":{"catchUpSpreadSeconds":0,"quietHours":null,"jitterSeconds":0,
                                 "maxRemindersPerEpisode":null},
                     "heartbeat":{"intervalSeconds":null},
                     "history":{"maxEntries":1000},
                     "sinks":[],"services":{},
                     "experiment":{"holdoutPercent":0,"defaultWeight":1,"variants":[],"allocation":"fixed"},
                     "storage":{"type":"files","url":null,"urlFile":null,"leaseSeconds":30,"poolSize":10,"parts":1},
                     "console":{"enabled":true},
                     "inApp":{"enabled":false,"maxPerEpisode":3,"minIntervalSeconds":86400,"afterSeconds":0},
                     "fallback":{"silentAfterSeconds":2592000}}
                    """)
        }
    }

    /// Secret values never appear in `/v1/config` or `/v1/status`; the files that hold them do.
    @Test func configNeverShowsSecrets() async throws {
        let token = "tok-SECRET-6a1f"
        let secret = "whsec_c2VjcmV0LXNpZ25pbmcta2V5LTkxMw=="
        let header = "Bearer hdr-SECRET-77b2"
        try await withAPI(configure: { configuration, root in
            try token.write(toFile: root + "/token", atomically: false, encoding: .utf8)
            try secret.write(toFile: root + "/whsec", atomically: false, encoding: .utf8)
            configuration.listen = ListenConfiguration(
                socket: root + "/s.sock", tcp: "127.0.0.1:8650", tokenFile: root + "/token")
            let webhook = WebhookSinkConfiguration(
                url: "https://example.com/hook", secretFile: root + "/whsec", headers: ["Authorization": header])
            configuration.sinks = [SinkConfiguration(name: "hook", kind: .webhook(webhook))]
        }) { api, client in
            let config = try await client.get("/v1/config")
            #expect(config.status == .ok)
            let status = try await client.get("/v1/status")
            for text in [config.text, status.text] {
                for value in [token, secret, "c2VjcmV0", header, "hdr-SECRET"] {
                    #expect(!text.contains(value), "\(value) leaked: \(text)")
                }
            }
            let object = try config.object()
            guard case .object(let listen)? = object["listen"], case .array(let sinks)? = object["sinks"],
                case .object(let hook)? = sinks.first
            else {
                Issue.record("unexpected shape: \(config.text)")
                return
            }
            #expect(listen["tokenFile"] == .string(api.root + "/token"))
            #expect(listen["tcp"] == .string("127.0.0.1:8650"))
            #expect(hook["secretFile"] == .string(api.root + "/whsec"))
            #expect(hook["headers"] == .object(["Authorization": .string(WebhookSinkConfiguration.redactedValue)]))
        }
    }

    /// A valid changed file reloads: 200 with the new effective configuration, `/v1/config`
    /// shows it, existing users are rescheduled and a later report uses the new delay.
    @Test func reloadAppliesValidConfiguration() async throws {
        try await withAPI { api, client in
            try await client.report("u-old", #"{"location":"whileInUse"}"#)
            try api.writeConfiguration(
                #"{"notification":{"notificationTriggerDelay":120,"notificationTitle":"Trips are not recorded"}}"#)
            let reload = try await client.post("/v1/reload")
            #expect(reload.status == .ok)
            #expect(reload.contentType == "application/json")
            let config = try await client.get("/v1/config")
            #expect(canonicalJSON(try reload.json()) == canonicalJSON(try config.json()))
            guard case .object(let notification)? = try config.object()["notification"] else {
                Issue.record("no notification: \(config.text)")
                return
            }
            #expect(notification["notificationTriggerDelay"] == .int(120))
            #expect(notification["notificationTitle"] == .string("Trips are not recorded"))
            #expect(try config.object()["stateDirectory"] == .string(api.stateDirectory))

            api.clock.advance(by: .seconds(30))
            let fresh = try await client.report("u-new", #"{"location":"whileInUse"}"#).object()
            #expect(fresh["nextReminderAt"] == .string("2026-11-15T10:02:30Z"))
            let old = try await client.get("/v1/users/u-old").object()
            #expect(old["nextReminderAt"] == .string("2026-11-15T10:02:00Z"))
            guard case .object(let statusNotification)? = try await client.get("/v1/status").object()["notification"]
            else {
                Issue.record("no notification in status")
                return
            }
            #expect(statusNotification["notificationTriggerDelay"] == .int(120))
        }
    }

    /// An invalid file is a 422 problem naming the key path (none for unparseable JSON or a
    /// missing file); the running configuration is kept and still applied to reports.
    @Test(
        arguments: [
            (#"{"notification":{"notificationTriggerDelay":0}}"#, "notification.notificationTriggerDelay"),
            (#"{"notification":{"showRecurringNotification":"yes"}}"#, "notification.showRecurringNotification"),
            (#"{"schedule":{"jitterSeconds":-1}}"#, "schedule.jitterSeconds"),
            (#"{"sinks":[{"type":"carrier-pigeon"}]}"#, "sinks[0].type"),
            (#"{"history":{"maxEntries":100,"colour":"red"}}"#, "history.colour"),
            (#"{"notification":{"notificationTriggerDelay":60}"#, nil),
            ("", nil),
        ] as [(String, String?)])
    func reloadKeepsConfigurationWhenInvalid(_ file: String, _ field: String?) async throws {
        try await withAPI { api, client in
            let before = try await client.get("/v1/config").text
            if !file.isEmpty { try api.writeConfiguration(file) }
            let problem = try expectProblem(try await client.post("/v1/reload"), status: 422, field: field)
            if case .string(let detail)? = problem["detail"] {
                #expect(detail.contains("kept"), "\(detail)")
            }
            #expect(try await client.get("/v1/config").text == before)
            let status = try await client.report("u-42", #"{"location":"whileInUse"}"#).object()
            #expect(status["nextReminderAt"] == .string("2026-11-22T10:00:00Z"))
        }
    }
}
