import Foundation
import Hummingbird
import RemindAPI
import RemindConfig
import RemindCore
import RemindStore

/// The routes operators and the console use to run the daemon (docs/api.md "Operations"):
/// status, metrics, pending reminders, dead letters, outcomes, the configuration and who is
/// asking.
struct OperationRoutes {
    typealias Context = RemindRequestContext

    let runtime: DaemonRuntime

    func register(on routes: ScopedRoutes) {
        routes.read.get("/v1/status", use: getStatus)
        routes.read.get("/metrics", use: getMetrics)
        routes.read.get("/v1/reminders", use: getReminders)
        routes.read.get("/v1/stats", use: getStats)
        routes.read.get("/v1/dead-letters", use: getDeadLetters)
        routes.admin.post("/v1/dead-letters/replay", use: postReplay)
        routes.read.get("/v1/config", use: getConfiguration)
        routes.admin.post("/v1/reload", use: postReload)
        routes.read.get("/v1/whoami", use: getWhoAmI)
    }

    @Sendable func getWhoAmI(_ request: Request, context: Context) throws -> Response {
        guard let caller = context.identity else {
            throw Problem(status: 403, title: "Forbidden", detail: "the caller is unknown")
        }
        return HTTPResponses.json(caller.jsonBytes)
    }

    @Sendable func getReminders(_ request: Request, context: Context) async throws -> Response {
        let dueBefore = try QueryParameters.timestamp(request, "dueBefore")
        let limit = try QueryParameters.integer(request, "limit", range: 1...100_000) ?? 100
        let reminders = await runtime.store.pendingReminders(dueBefore: dueBefore, limit: limit)
        return HTTPResponses.json(
            PendingReminder.listJSON(
                reminders.map {
                    PendingReminder(
                        userID: $0.userID.rawValue, dueAt: $0.dueAt, sequence: $0.sequence, reason: $0.reason)
                }))
    }

    @Sendable func getStatus(_ request: Request, context: Context) async -> Response {
        let statistics = await runtime.store.statistics()
        let sinkCounts = runtime.sinks.map { ($0, $0.statistics.snapshot) }
        var status = DaemonStatus(
            version: DaemonRuntime.version, startedAt: runtime.startedAt, users: statistics.users,
            openEpisodes: statistics.openEpisodes, pendingReminders: statistics.pendingReminders,
            nextReminderAt: statistics.nextReminderAt, delivered: statistics.eventsDelivered,
            suppressed: statistics.suppressed, failed: sinkCounts.reduce(0) { $0 + $1.1.failed },
            deadLetters: statistics.deadLetters, quarantined: statistics.quarantined,
            sinks: sinkCounts.map { handle, counts in
                DaemonStatus.Sink(
                    name: handle.sink.name, type: handle.sink.type, delivered: counts.delivered, failed: counts.failed,
                    pending: statistics.outboxPending[handle.sink.name] ?? 0)
            },
            notification: runtime.configuration.notification)
        status.services = Dictionary(
            uniqueKeysWithValues: runtime.configuration.services.map {
                ($0.name, $0.counts(statistics.usersByConditions))
            })
        return HTTPResponses.json(status.jsonBytes)
    }

    @Sendable func getDeadLetters(_ request: Request, context: Context) async -> Response {
        let letters = await runtime.store.deadLetters().map { letter in
            DeadLetter(
                id: letter.event.id, sink: letter.sink, attempts: letter.attempts, lastError: letter.lastError,
                deadLetteredAt: letter.deadLetteredAt,
                event: (try? JSONParser.parse(letter.event.bytes)) ?? .string(letter.event.json))
        }
        return HTTPResponses.json(DeadLetter.listJSON(letters))
    }

    /// Re-queues all dead letters, or those named in `{"ids":[...]}` (event ids).
    @Sendable func postReplay(_ request: Request, context: Context) async throws -> Response {
        let body = try await LimitedBody.collect(request)
        var ids: Set<String>?
        if body.readableBytes > 0 {
            guard case .object(let object)? = try? JSONParser.parse(body.readableBytesView) else {
                throw ValidationError(field: "", reason: "body must be a JSON object such as {\"ids\":[…]}")
            }
            var reader = JSONObjectReader(object)
            if let values = try reader.array("ids") {
                var names = Set<String>()
                for (index, value) in values.enumerated() {
                    guard case .string(let id) = value else {
                        throw ValidationError(field: "ids[\(index)]", reason: "must be an event id string")
                    }
                    names.insert(id)
                }
                ids = names
            }
        }
        let replayed = try await runtime.store.replayDeadLetters(ids: ids)
        runtime.audit(
            "replayed \(replayed) dead letter(s)", actor: context.identity?.name ?? "unknown",
            route: "POST /v1/dead-letters/replay")
        return HTTPResponses.json(DeadLetterReplay(replayed: replayed).jsonBytes)
    }

    @Sendable func getConfiguration(_ request: Request, context: Context) -> Response {
        HTTPResponses.json { $0.value(runtime.configuration.json) }
    }

    @Sendable func postReload(_ request: Request, context: Context) async -> Response {
        do {
            let configuration = try await runtime.reload(
                actor: context.identity?.name ?? "unknown", route: "POST /v1/reload")
            return HTTPResponses.json { $0.value(configuration.json) }
        } catch {
            return HTTPResponses.problem(
                Problem(
                    status: 422, title: "Invalid configuration",
                    detail: "\(error.description); the running configuration is kept",
                    field: error.field.isEmpty ? nil : error.field))
        }
    }

    @Sendable func getMetrics(_ request: Request, context: Context) async -> Response {
        let statistics = await runtime.store.statistics()
        await runtime.refreshFunnelMetric()
        let text = runtime.metrics.exposition(
            statistics: statistics, sinks: runtime.sinks.map(\.sink.name), services: runtime.configuration.services)
        return Response(
            status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: text)))
    }

    /// `GET /v1/stats?since=T&until=T` (docs/outcomes.md): the episodes that opened in `[since, until)`,
    /// by default the last 30 days.
    @Sendable func getStats(_ request: Request, context: Context) async throws -> Response {
        let until = try QueryParameters.timestamp(request, "until") ?? runtime.wallClock()
        let since = try QueryParameters.timestamp(request, "since") ?? until.addingTimeInterval(-30 * 86_400)
        guard since < until else {
            throw ValidationError(field: "since", reason: "must be before until (\(RFC3339.format(until)))")
        }
        var report = await runtime.store.stats(since: since, until: until)
        report.allocation = runtime.allocationReport()
        report.alwaysKept = runtime.alwaysKeptReport(since: since, until: until)
        runtime.readAlwaysKeptIfStale()
        return HTTPResponses.json(report.jsonBytes)
    }
}
