import Hummingbird
import HummingbirdTesting
import RemindConfig
import Testing

@testable import RemindDaemon

struct AccessPolicyTests {
    private static func tokens(_ entries: [(String, AccessScope, String)]) -> TokenTable {
        TokenTable(AccessTokens(entries: entries.map { .init(name: $0.0, scope: $0.1, token: Array($0.2.utf8)) }))
    }

    /// A token names its holder exactly: a prefix, an extension, one changed byte and the empty
    /// token name nobody.
    @Test func tokenLookupIsExact() {
        let table = Self.tokens([("ops", .admin, "s3cret-token-0123456"), ("viewer", .read, "r3ad-token-abcdefgh")])
        #expect(table.holder(of: Array("s3cret-token-0123456".utf8)) == .init(name: "ops", scope: .admin))
        #expect(table.holder(of: Array("r3ad-token-abcdefgh".utf8)) == .init(name: "viewer", scope: .read))
        #expect(table.holder(of: Array("s3cret-token-012345".utf8)) == nil)
        #expect(table.holder(of: Array("s3cret-token-01234567".utf8)) == nil)
        #expect(table.holder(of: Array("s3cret-token-0123457".utf8)) == nil)
        #expect(table.holder(of: [UInt8]()) == nil)
        #expect(table.holder(authorization: "Bearer s3cret-token-0123456")?.name == "ops")
        #expect(table.holder(authorization: "bearer s3cret-token-0123456") == nil)
        #expect(table.holder(authorization: "s3cret-token-0123456") == nil)
        #expect(table.holder(authorization: nil) == nil)
    }

    /// A reload replaces the whole table: a removed token names nobody at once.
    @Test func replacingTheTableDropsOldTokens() {
        let table = Self.tokens([("ops", .admin, "s3cret-token-0123456")])
        table.replace(
            with: AccessTokens(entries: [.init(name: "new", scope: .read, token: Array("n3w-token-0123456789".utf8))]))
        #expect(table.holder(of: Array("s3cret-token-0123456".utf8)) == nil)
        #expect(table.holder(of: Array("n3w-token-0123456789".utf8))?.name == "new")
    }

    /// Each route needs the scope of its group: reads `read`, the report routes `report`, the
    /// rest `admin`; a caller below it gets a 403 naming the scope, one without a token a 401,
    /// on every route and on unknown ones too. Asked of the real router with a bearer policy.
    @Test func eachRouteNeedsItsScope() async throws {
        let table = Self.tokens([
            ("viewer", .read, "r3ad-token-abcdefgh"), ("app", .report, "r3port-token-abcdef"),
            ("ops", .admin, "s3cret-token-0123456"),
        ])
        let tokens: [AccessScope: String] = [
            .read: "r3ad-token-abcdefgh", .report: "r3port-token-abcdef", .admin: "s3cret-token-0123456",
        ]
        let routes: [(HTTPRequest.Method, String, AccessScope)] = [
            (.get, "/v1/users/u-1", .read), (.get, "/metrics", .read), (.head, "/v1/status", .read),
            (.get, "/v1/users", .read), (.get, "/v1/whoami", .read),
            (.post, "/v1/users/u-1/reports", .report), (.post, "/v1/reports", .report),
            (.delete, "/v1/users/u-1", .admin), (.post, "/v1/dead-letters/replay", .admin),
            (.post, "/v1/reload", .admin),
        ]
        try await withAPI(access: .bearer(table)) { _, client in
            for (method, path, needed) in routes {
                let anonymous = try await client.execute(uri: path, method: method)
                #expect(anonymous.status == .unauthorized, "\(method) \(path)")
                for scope in AccessScope.allCases {
                    let response = try await client.execute(
                        uri: path, method: method, headers: [.authorization: "Bearer \(tokens[scope]!)"])
                    if scope < needed {
                        #expect(response.status == .forbidden, "\(method) \(path) as \(scope)")
                        if method != .head {
                            #expect(
                                String(buffer: response.body).contains("needs the \(needed.rawValue) scope"),
                                "\(method) \(path)")
                        }
                    } else {
                        #expect(
                            response.status != .forbidden && response.status != .unauthorized,
                            "\(method) \(path) as \(scope)")
                    }
                }
            }
            // An unknown route is refused without a token and not found with one.
            #expect(try await client.execute(uri: "/v1/nothing", method: .post).status == .unauthorized)
            let unknown = try await client.execute(
                uri: "/v1/nothing", method: .post, headers: [.authorization: "Bearer r3ad-token-abcdefgh"])
            #expect(unknown.status == .notFound)
        }
    }
}
