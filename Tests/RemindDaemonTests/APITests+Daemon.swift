import Foundation
import HummingbirdTesting
import RemindAPI
import RemindCore
import RemindTesting
import Testing

@testable import RemindDaemon

extension APITests {
    static let statusKeys = [
        "version", "startedAt", "users", "openEpisodes", "pendingReminders", "nextReminderAt", "delivered",
        "suppressed", "failed", "deadLetters", "quarantined", "sinks", "notification", "services",
    ]

    /// `/v1/status` has exactly openapi.yaml's keys, and its counts follow reports, a scheduler
    /// pass (one delivery, one suppression) and a sink's acknowledgement.
    @Test func statusCountsUsersEpisodesAndEvents() async throws {
        try await withAPI(
            sink: true,
            configure: { configuration, _ in
                configuration.notification.notificationTriggerDelay = 60
            }
        ) { api, client in
            try await client.report("u-a", #"{"location":"whileInUse"}"#)
            try await client.report("u-b", #"{"location":"always"}"#)
            api.clock.advance(by: .seconds(10))
            try await client.report("u-c", #"{"location":"denied","notifications":"denied"}"#)
            let notification = """
                {"showRecurringNotification":false,"notificationTriggerDelay":60,
                 "notificationTitle":"App is unable to record trips",
                 "notificationDescription":"Please grant Always access for location.",
                 "remindFor":["locationServicesTurnedOff","locationNotAuthorizedAlways"],"byReason":{},
                 "localizations":{},"sendTime":"due"}
                """
            let sink = #"{"name":"events","type":"file","delivered":0,"failed":0,"pending":0}"#
            let status = try await client.get("/v1/status")
            #expect(status.status == .ok)
            #expect(try status.object().keys.sorted() == Self.statusKeys.sorted())
            try expectJSON(
                status,
                equals: """
                    {"version":"\(DaemonRuntime.version)","startedAt":"2026-11-15T10:00:00Z","users":3,
                     "openEpisodes":2,"pendingReminders":2,"nextReminderAt":"2026-11-15T10:01:00Z",
                     "delivered":0,"suppressed":0,"failed":0,"deadLetters":0,"quarantined":0,
                     "sinks":[\(sink)],"notification":\(notification),"services":{}}
                    """)

            api.clock.advance(by: .seconds(60))
            let fired = try await api.store.fireDue(now: api.clock.wallNow)
            #expect(fired.events.map(\.id) == ["u-a/1794736800/1"])
            #expect(fired.suppressed == [try UserID("u-c")])
            let afterFire = try await client.get("/v1/status").object()
            #expect(afterFire["suppressed"] == .int(1))
            #expect(afterFire["delivered"] == .int(0))
            #expect(afterFire["openEpisodes"] == .int(2))
            #expect(afterFire["pendingReminders"] == .int(0))
            #expect(afterFire["nextReminderAt"] == .null)
            #expect(
                afterFire["sinks"]
                    == .array([
                        .object([
                            "name": .string("events"), "type": .string("file"), "delivered": .int(0), "failed": .int(0),
                            "pending": .int(1),
                        ])
                    ]))

            await api.store.complete("u-a/1794736800/1", sink: APIHarness.sinkName)
            let afterAck = try await client.get("/v1/status").object()
            #expect(afterAck["delivered"] == .int(1))
            #expect(
                afterAck["sinks"]
                    == .array([
                        .object([
                            "name": .string("events"), "type": .string("file"), "delivered": .int(0), "failed": .int(0),
                            "pending": .int(0),
                        ])
                    ]))
        }
    }

    /// The population's active hour (the send time's fallback) follows the users within the
    /// learning service's minute: unknown with no activity, then the hour most users are most
    /// active in, in the policy every change runs under from then on.
    @Test func thePopulationsActiveHourFollowsTheUsers() async throws {
        try await withAPI(configure: { configuration, _ in
            configuration.notification.sendTime = .active(.init(minReports: 1))
        }) { harness, client in
            await harness.runtime.refreshPopulationHour()
            #expect(await harness.store.policy.configuration.populationActiveHour == nil)
            for (user, time) in [("u-a", "07:10"), ("u-b", "07:40"), ("u-c", "21:00")] {
                try await client.report(
                    user, #"{"location":"whileInUse","observedAt":"2026-11-10T\#(time):00Z"}"#)
            }
            await harness.runtime.refreshPopulationHour()
            #expect(await harness.store.policy.configuration.populationActiveHour == 7)
            for user in ["u-d", "u-e"] {
                try await client.report(user, #"{"location":"whileInUse","observedAt":"2026-11-10T21:30:00Z"}"#)
            }
            await harness.runtime.refreshPopulationHour()
            #expect(await harness.store.policy.configuration.populationActiveHour == 21)
        }
    }

    /// A report that closes an episode with a delivered reminder puts one withdraw event,
    /// naming that reminder, in the outbox behind the reminder itself.
    @Test func closingReportAfterDeliveryQueuesWithdraw() async throws {
        try await withAPI(
            sink: true,
            configure: { configuration, _ in
                configuration.notification.notificationTriggerDelay = 60
            }
        ) { api, client in
            try await client.report("u-42", #"{"location":"whileInUse"}"#)
            api.clock.advance(by: .seconds(60))
            let fired = try await api.store.fireDue(now: api.clock.wallNow)
            #expect(fired.users == 1)
            let reminder = try #require(await api.store.peekEvent(for: APIHarness.sinkName))
            #expect(
                canonicalJSON(try JSONParser.parse(reminder.bytes))
                    == canonicalJSON(
                        try JSONParser.parse(
                            """
                            {"type":"reminder","id":"u-42/1794736800/1","userID":"u-42",
                             "title":"App is unable to record trips","body":"Please grant Always access for location.",
                             "reason":"locationNotAuthorizedAlways","errors":["locationNotAuthorizedAlways"],
                             "sequence":1,"episodeStartedAt":"2026-11-15T10:00:00Z",
                             "dueAt":"2026-11-15T10:01:00Z","channel":"push","because":null,"locale":null,
                             "platform":null,"createdAt":"2026-11-15T10:01:00Z"}
                            """)))
            let delivered = try await client.get("/v1/users/u-42").object()
            #expect(delivered["lastReminderAt"] == .string("2026-11-15T10:01:00Z"))
            #expect(delivered["nextReminderAt"] == .null)
            #expect(
                delivered["episode"]
                    == .object([
                        "startedAt": .string("2026-11-15T10:00:00Z"), "remindersDelivered": .int(1),
                        "remindersSuppressed": .int(0), "remindersHeldOut": .int(0), "opening": .string("first"),
                        "opened": .int(0), "asks": .int(0), "asksShown": .int(0), "asksAccepted": .int(0),
                    ]))

            api.clock.advance(by: .seconds(30))
            let closed = try await client.report("u-42", #"{"location":"always"}"#).object()
            #expect(closed["episode"] == .null)
            #expect(closed["alwaysAccess"] == .bool(true))
            #expect(closed["errors"] == .array([]))
            #expect(await api.store.pendingEvents(for: APIHarness.sinkName) == 2)
            #expect(await api.store.peekEvent(for: APIHarness.sinkName)?.id == reminder.id)
            await api.store.complete(reminder.id, sink: APIHarness.sinkName)
            let withdraw = try #require(await api.store.peekEvent(for: APIHarness.sinkName))
            #expect(
                canonicalJSON(try JSONParser.parse(withdraw.bytes))
                    == canonicalJSON(
                        try JSONParser.parse(
                            """
                            {"type":"withdraw","id":"u-42/1794736800/withdraw","userID":"u-42",
                             "reminderIDs":["u-42/1794736800/1"],"episodeStartedAt":"2026-11-15T10:00:00Z",
                             "createdAt":"2026-11-15T10:01:30Z"}
                            """)))
            await api.store.complete(withdraw.id, sink: APIHarness.sinkName)
            #expect(await api.store.peekEvent(for: APIHarness.sinkName) == nil)
        }
    }

    /// `/metrics` is Prometheus text: typed, described gauges and counters.
    @Test func metricsArePrometheusText() async throws {
        try await withAPI { _, client in
            try await client.report("u-42", #"{"location":"whileInUse"}"#)
            let response = try await client.get("/metrics")
            #expect(response.status == .ok)
            #expect(response.contentType?.hasPrefix("text/plain") == true)
            let lines = response.text.split(separator: "\n").map(String.init)
            // swift-prometheus writes gauges as floating point, counters as integers.
            #expect(lines.contains("remindd_users 1.0"))
            #expect(lines.contains("# TYPE remindd_users gauge"))
            #expect(lines.contains("# HELP remindd_users Users known to remindd."))
            #expect(lines.contains("remindd_open_episodes 1.0"))
            #expect(lines.contains("remindd_pending_reminders 1.0"))
            #expect(lines.contains("remindd_reports_total 1"))
            #expect(lines.contains("# TYPE remindd_reports_total counter"))
            #expect(lines.contains("remindd_report_changes_total 1"))
            // The new user's whole record went to the log before the reply.
            let logged = lines.first { $0.hasPrefix("remindd_log_bytes_total ") }.flatMap { Double($0.dropFirst(24)) }
            #expect((logged ?? 0) > 300, "\(lines.filter { $0.contains("log_bytes") })")
            #expect(lines.contains("# TYPE remindd_log_bytes_total counter"))
            for line in lines where !line.hasPrefix("#") {
                let parts = line.split(separator: " ")
                #expect(parts.count == 2 && Double(parts[1]) != nil, "not a sample: \(line)")
            }
        }
    }

    /// Unknown paths are 404 problems.
    @Test(arguments: [
        "/", "/v1", "/v1/", "/v1/user", "/v2/status", "/v1/status/", "/v1/status/extra", "/metrics/x",
        "/v1/users/u-42/unknown", "/v1/users/u-42/reports/extra", "/V1/status",
    ])
    func unknownPathIsNotFound(_ path: String) async throws {
        try await withAPI { _, client in
            try expectProblem(try await client.get(path), status: 404, field: nil)
        }
    }

    /// A known path with the wrong method, any method, is a 405 problem whose `Allow` lists the
    /// methods.
    @Test(arguments: [
        ("PUT", "/v1/users/u-42", "GET, DELETE"), ("POST", "/v1/users/u-42", "GET, DELETE"),
        ("GET", "/v1/users/u-42/reports", "POST"), ("DELETE", "/v1/users/u-42/reports", "POST"),
        ("POST", "/v1/users/u-42/history", "GET"), ("DELETE", "/v1/users/u-42/explain", "GET"),
        ("POST", "/v1/reminders", "GET"), ("POST", "/v1/status", "GET"), ("DELETE", "/v1/config", "GET"),
        ("GET", "/v1/reload", "POST"), ("POST", "/metrics", "GET"), ("TRACE", "/v1/users", "GET"),
        ("QUERY", "/v1/status", "GET"), ("QUERY", "/v1/users/u-42/reports", "POST"),
    ])
    func wrongMethodIsNotAllowed(_ method: String, _ path: String, _ allow: String) async throws {
        try await withAPI { api, client in
            let response = try await client.execute(uri: path, method: .init(method)!)
            try expectProblem(response, status: 405, field: nil)
            #expect(response.headers[.allow] == allow)
            #expect(try FileManager.default.contentsOfDirectory(atPath: api.root) == ["state"])
            try expectProblem(try await client.get("/v1/users/u-42"), status: 404, field: nil)
        }
    }
}

extension APITests {
    /// `/v1/stats` counts the episodes that opened in the window; a bad or reversed window is
    /// a 400 naming the parameter.
    @Test func statsCountsEpisodesAndRefusesBadWindows() async throws {
        try await withAPI { api, client in
            try await client.report("u-1", #"{"location":"whileInUse"}"#)
            try await client.report("u-2", #"{"location":"denied"}"#)
            api.clock.advance(by: .seconds(600))
            try await client.report("u-1", #"{"location":"always"}"#)
            let response = try await client.get("/v1/stats")
            #expect(response.status == .ok)
            let report = try StatsReport(json: try JSONParser.parse(Array(response.text.utf8)))
            #expect(report.groups.map(\.group) == ["default"])
            #expect(report.groups[0].episodes == 2 && report.groups[0].resolved == 1 && report.groups[0].open == 1)
            #expect(report.groups[0].timeToFixP50 == 600)
            #expect(report.groups[0].resolutionRate == 0.5)
            // Half-open: an episode that opened exactly at `until` is not in the window.
            let until = try await client.get("/v1/stats?since=2026-11-01T00:00:00Z&until=2026-11-15T10:00:00Z")
            #expect(try StatsReport(json: try JSONParser.parse(Array(until.text.utf8))).groups.isEmpty)
            let since = try await client.get("/v1/stats?since=2026-11-15T10:00:00Z&until=2026-11-15T10:00:00.001Z")
            #expect(try StatsReport(json: try JSONParser.parse(Array(since.text.utf8))).groups.first?.episodes == 2)
            _ = try expectProblem(try await client.get("/v1/stats?since=yesterday"), status: 400, field: "since")
            _ = try expectProblem(try await client.get("/v1/stats?until=12"), status: 400, field: "until")
            _ = try expectProblem(
                try await client.get("/v1/stats?since=2026-12-01T00:00:00Z&until=2026-11-01T00:00:00Z"), status: 400,
                field: "since")
        }
    }
}
