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
        return HTTPResponses.json { writer in
            writer.beginObject()
            writer.key("reminders")
            writer.beginArray()
            for reminder in reminders {
                writer.beginObject()
                writer.member("userID", reminder.userID.rawValue)
                writer.member("dueAt", RFC3339.format(reminder.dueAt))
                writer.member("sequence", reminder.sequence)
                writer.member("reason", reminder.reason.rawValue)
                writer.endObject()
            }
            writer.endArray()
            writer.endObject()
        }
    }

    func getStatus() async -> Response {
        let statistics = await runtime.store.statistics()
        let sinkCounts = runtime.sinks.map { ($0, $0.statistics.snapshot) }
        let deadLetters = await runtime.store.listDeadLetters().count
        let configuration = runtime.configuration
        return HTTPResponses.json { writer in
            writer.beginObject()
            writer.member("version", DaemonRuntime.version)
            writer.member("startedAt", RFC3339.format(runtime.startedAt))
            writer.member("users", statistics.users)
            writer.member("openEpisodes", statistics.openEpisodes)
            writer.member("pendingReminders", statistics.pendingReminders)
            writer.member("nextReminderAt", statistics.nextReminderAt.map(RFC3339.format))
            writer.member("delivered", statistics.eventsDelivered)
            writer.member("suppressed", statistics.suppressed)
            writer.member("failed", sinkCounts.reduce(0) { $0 + $1.1.failed })
            writer.member("deadLetters", deadLetters)
            writer.member("quarantined", statistics.quarantined)
            writer.key("sinks")
            writer.beginArray()
            for (handle, counts) in sinkCounts {
                writer.beginObject()
                writer.member("name", handle.sink.name)
                writer.member("type", handle.sink.type)
                writer.member("delivered", counts.delivered)
                writer.member("failed", counts.failed)
                writer.member("pending", statistics.outboxPending[handle.sink.name] ?? 0)
                writer.endObject()
            }
            writer.endArray()
            writer.key("notification")
            writer.value(configuration.notification.json)
            writer.endObject()
        }
    }

    func getDeadLetters() async -> Response {
        let letters = await runtime.store.listDeadLetters()
        return HTTPResponses.json { writer in
            writer.beginObject()
            writer.key("deadLetters")
            writer.beginArray()
            for letter in letters { letter.write(to: &writer) }
            writer.endArray()
            writer.endObject()
        }
    }

    /// Re-queues all dead letters, or those named in `{"ids":[...]}` (event ids).
    func postReplay(_ request: Request) async throws -> Response {
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
        runtime.logger.notice("replayed \(replayed) dead letter(s)")
        return HTTPResponses.json { writer in
            writer.beginObject()
            writer.member("replayed", replayed)
            writer.endObject()
        }
    }

    func getConfiguration() -> Response {
        HTTPResponses.json { $0.value(runtime.configuration.json) }
    }

    func postReload() async -> Response {
        do {
            let configuration = try await runtime.reload()
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
        let text = runtime.metrics.exposition(statistics: statistics, sinks: runtime.sinks.map(\.sink.name))
        return Response(
            status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: text)))
    }
}
