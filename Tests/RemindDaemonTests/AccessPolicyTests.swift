import Hummingbird
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

    /// GET needs read, the report routes report, everything else (and any unknown route) admin.
    @Test func eachRouteNeedsItsScope() {
        func scope(_ method: HTTPRequest.Method, _ path: String) -> AccessScope {
            AccessPolicy.requiredScope(
                method, segments: Array(path.split(separator: "/", omittingEmptySubsequences: false).dropFirst()))
        }
        #expect(scope(.get, "/v1/users/u-1") == .read)
        #expect(scope(.get, "/metrics") == .read)
        #expect(scope(.head, "/v1/status") == .read)
        #expect(scope(.post, "/v1/users/u-1/reports") == .report)
        #expect(scope(.post, "/v1/reports") == .report)
        #expect(scope(.delete, "/v1/users/u-1") == .admin)
        #expect(scope(.post, "/v1/dead-letters/replay") == .admin)
        #expect(scope(.post, "/v1/reload") == .admin)
        #expect(scope(.post, "/v1/users/u-1") == .admin)
        #expect(scope(.put, "/v1/users/u-1/reports") == .admin)
        #expect(scope(.post, "/v1/nothing") == .admin)
    }
}
