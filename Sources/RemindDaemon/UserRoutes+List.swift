import Foundation
import Hummingbird
import NIOCore
import RemindAPI
import RemindCore
import RemindStore

extension UserRoutes {
    /// Users read from the store per page of the NDJSON stream: enough to keep the socket busy,
    /// few enough that the stream holds a bounded number of them.
    static let userStreamPage = 1_000

    /// `GET /v1/users?after=&limit=`: a page of statuses in byte order of the ID, or with
    /// `Accept: application/x-ndjson` every user after `after`, one status per line, read from
    /// the store a page at a time while the answer is written.
    @Sendable func getUsers(_ request: Request, context: Context) async throws -> Response {
        var after: UserID?
        if let text = request.uri.queryParameters["after"] {
            do throws(ValidationError) {
                after = try UserID(String(text))
            } catch {
                throw ValidationError(field: "after", reason: "must be a user ID: \(error.reason)")
            }
        }
        let limit =
            try QueryParameters.integer(request, "limit", range: 1...UserList.maximumLimit) ?? UserList.defaultLimit
        if Self.wantsStream(request) { return try await streamUsers(after: after) }
        let records = try await runtime.users(after: after, limit: limit)
        let statuses = await encodedStatuses(records)
        let next = records.count == limit ? records.last?.userID : nil
        return HTTPResponses.json(UserList(users: statuses, next: next).jsonBytes)
    }

    /// Whether the request's `Accept` names the NDJSON stream.
    static func wantsStream(_ request: Request) -> Bool {
        request.headers[values: .accept].contains { value in
            value.split(separator: ",").contains {
                $0.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased()
                    == UserList.streamMediaType
            }
        }
    }

    /// The first page is read before the answer starts, so a store that fails at once is
    /// answered with a problem. One that fails later cuts the stream off without its last
    /// chunk: the client sees an incomplete answer, never a short list that looks whole.
    private func streamUsers(after: UserID?) async throws -> Response {
        let store = runtime.store
        let first = try await runtime.users(after: after, limit: Self.userStreamPage)
        let responder = self
        let body = ResponseBody { writer in
            var page = first
            while !page.isEmpty {
                var buffer = ByteBuffer()
                for status in await responder.encodedStatuses(page) {
                    buffer.writeBytes(status)
                    buffer.writeInteger(UInt8(ascii: "\n"))
                }
                try await writer.write(buffer)
                guard page.count == Self.userStreamPage, let last = page.last?.userID else { break }
                do {
                    page = try await store.users(after: last, limit: Self.userStreamPage)
                } catch let error as StoreError {
                    responder.runtime.noteStoreFailure(error)
                    throw error
                }
            }
            try await writer.finish(nil)
        }
        return Response(status: .ok, headers: [.contentType: UserList.streamMediaType], body: body)
    }

    /// The statuses as `GET /v1/users/{userID}` encodes them; a record without a report yet
    /// (which that route answers 404) is left out.
    private func encodedStatuses(_ records: [UserRecord]) async -> [[UInt8]] {
        let policy = await runtime.store.policy
        return records.compactMap {
            UserStatus(record: $0, policy: policy, daemonStartedAt: runtime.startedAt)?.jsonBytes
        }
    }
}
