import Foundation
import HummingbirdTesting
import RemindCore
import RemindTesting
import Testing

extension APITests {
    /// `GET /v1/users` pages through the users in byte order of the ID, each a status exactly
    /// as `GET /v1/users/{id}` answers it; `next` chains the pages and is null on the last.
    @Test func usersArePagedInByteOrder() async throws {
        try await withAPI { _, client in
            for user in ["b", "B", "a-1", "a", "Z", "0"] {
                try await client.report(user, #"{"location":"whileInUse"}"#)
            }
            let first = try await client.get("/v1/users?limit=4").object()
            guard case .array(let users)? = first["users"] else { throw POSIXError(.EINVAL) }
            #expect(users.map(userID) == ["0", "B", "Z", "a"])
            #expect(first["next"] == .string("a"))
            let single = try await client.get("/v1/users/Z").json()
            #expect(canonicalJSON(users[2]) == canonicalJSON(single))
            let second = try await client.get("/v1/users?limit=4&after=a").object()
            guard case .array(let rest)? = second["users"] else { throw POSIXError(.EINVAL) }
            #expect(rest.map(userID) == ["a-1", "b"])
            #expect(second["next"] == .null)
            // The default page holds them all.
            guard case .array(let all)? = try await client.get("/v1/users").object()["users"] else {
                throw POSIXError(.EINVAL)
            }
            #expect(all.count == 6)
        }
    }

    /// With `Accept: application/x-ndjson` every user after `after` comes, one status per line,
    /// whatever `limit` says; with none, an empty answer.
    @Test func usersStreamAsNDJSON() async throws {
        try await withAPI { _, client in
            #expect(
                try await client.execute(uri: "/v1/users", method: .get, headers: [.accept: "application/x-ndjson"])
                    .text == "")
            for index in 0..<1_200 {
                try await client.report("u\(String(index + 10_000))", #"{"location":"whileInUse"}"#)
            }
            let response = try await client.execute(
                uri: "/v1/users?after=u10099&limit=1", method: .get,
                headers: [.accept: "application/json;q=0.5, application/x-ndjson"])
            #expect(response.status == .ok)
            #expect(response.contentType == "application/x-ndjson")
            let lines = response.text.split(separator: "\n", omittingEmptySubsequences: false)
            #expect(lines.last == "")
            let ids = try lines.dropLast().map { userID(try JSONParser.parse(Array($0.utf8))) }
            #expect(ids == (10_100..<11_200).map { "u\($0)" })
        }
    }

    /// A bad `after` or `limit` is a 400 naming it.
    @Test func userListRefusesBadParameters() async throws {
        try await withAPI { _, client in
            try expectProblem(try await client.get("/v1/users?after=.."), status: 400, field: "after")
            try expectProblem(try await client.get("/v1/users?after=a%2Fb"), status: 400, field: "after")
            try expectProblem(try await client.get("/v1/users?limit=0"), status: 400, field: "limit")
            try expectProblem(try await client.get("/v1/users?limit=10001"), status: 400, field: "limit")
            let refused = try await client.execute(uri: "/v1/users", method: .post)
            #expect(refused.status.code == 405)
            #expect(refused.headers[.allow] == "GET")
        }
    }
}

/// The `userID` of a status; empty when it has none.
private func userID(_ status: JSONValue) -> String {
    guard case .object(let object) = status, case .string(let id)? = object["userID"] else { return "" }
    return id
}
