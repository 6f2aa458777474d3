import Foundation
import Hummingbird
import RemindAPI
import RemindConfig
import RemindCore
import RemindStore

extension APIResponder {
    func getReminders(_ request: Request) async throws -> Response {
        var dueBefore: Date?
        if let text = request.uri.queryParameters["dueBefore"] {
            guard let date = RFC3339.parse(String(text)) else {
                throw ValidationError(field: "dueBefore", reason: "must be an RFC 3339 timestamp")
            }
            dueBefore = date
        }
        let limit = try Self.integerParameter(request, "limit", range: 1...100_000) ?? 100
        let reminders = await runtime.store.pendingReminders(dueBefore: dueBefore, limit: limit)
        return HTTPResponses.json(
            PendingReminder.listJSON(
                reminders.map {
                    PendingReminder(
                        userID: $0.userID.rawValue, dueAt: $0.dueAt, sequence: $0.sequence, reason: $0.reason)
                }))
    }

    func getStatus() async -> Response {
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

    func getDeadLetters() async -> Response {
        let letters = await runtime.store.deadLetters().map { letter in
            DeadLetter(
                id: letter.event.id, sink: letter.sink, attempts: letter.attempts, lastError: letter.lastError,
                deadLetteredAt: letter.deadLetteredAt,
                event: (try? JSONParser.parse(letter.event.bytes)) ?? .string(letter.event.json))
        }
        return HTTPResponses.json(DeadLetter.listJSON(letters))
    }

    /// Re-queues all dead letters, or those named in `{"ids":[...]}` (event ids).
    func postReplay(_ request: Request, actor: String) async throws -> Response {
        let body: ByteBuffer
        switch try await self.body(of: request) {
        case .success(let buffer): body = buffer
        case .failure(let response): return response
        }
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
        runtime.audit("replayed \(replayed) dead letter(s)", actor: actor, route: "POST /v1/dead-letters/replay")
        return HTTPResponses.json(DeadLetterReplay(replayed: replayed).jsonBytes)
    }

    func getConfiguration() -> Response {
        HTTPResponses.json { $0.value(runtime.configuration.json) }
    }

    func postReload(actor: String) async -> Response {
        do {
            let configuration = try await runtime.reload(actor: actor, route: "POST /v1/reload")
            return HTTPResponses.json { $0.value(configuration.json) }
        } catch {
            return HTTPResponses.problem(
                Problem(
                    status: 422, title: "Invalid configuration",
                    detail: "\(error.description); the running configuration is kept",
                    field: error.field.isEmpty ? nil : error.field))
        }
    }

    func getMetrics() async -> Response {
        let statistics = await runtime.store.statistics()
        let text = runtime.metrics.exposition(
            statistics: statistics, sinks: runtime.sinks.map(\.sink.name), services: runtime.configuration.services)
        return Response(
            status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: text)))
    }
}

extension APIResponder {
    /// `GET /v1/stats?since=T&until=T` (docs/outcomes.md): the episodes that opened in `[since, until)`,
    /// by default the last 30 days.
    func getStats(_ request: Request) async throws -> Response {
        let now = runtime.wallClock()
        func parameter(_ name: String) throws(ValidationError) -> Date? {
            guard let text = request.uri.queryParameters[Substring(name)] else { return nil }
            guard let date = RFC3339.parse(String(text)) else {
                throw ValidationError(field: name, reason: "must be an RFC 3339 timestamp such as 2026-11-01T00:00:00Z")
            }
            return date
        }
        let until = try parameter("until") ?? now
        let since = try parameter("since") ?? until.addingTimeInterval(-30 * 86_400)
        guard since < until else {
            throw ValidationError(field: "since", reason: "must be before until (\(RFC3339.format(until)))")
        }
        var report = await runtime.store.stats(since: since, until: until)
        report.allocation = runtime.allocationReport()
        return HTTPResponses.json(report.jsonBytes)
    }
}
