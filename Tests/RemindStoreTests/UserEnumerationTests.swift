import Foundation
import RemindCore
import RemindStore
import RemindTesting
import Testing

/// `users(after:limit:)`, the enumeration of the `UserStore` contract, on every backend: byte
/// order of the ID, pages chained by their last ID, and users that come and go meanwhile.
struct UserEnumerationTests {
    let start = Fixtures.date("2026-11-15T10:00:00Z")

    /// IDs whose byte order differs from a human's (upper case before lower, digits and
    /// punctuation before letters) and from most database collations.
    static let ids = ["b", "B", "a", "a.1", "a-1", "Z", "~x", "0", "@m", "a_1", "A", "aa", "a:1", "+1", "zz"]

    func report(_ store: any StateStore, _ user: String, at offset: Double = 0) async throws {
        let at = start.addingTimeInterval(offset)
        try await store.storeReport(
            PermissionReport(location: .whileInUse, observedAt: at), for: Fixtures.userID(user), receivedAt: at)
    }

    /// Every page after the last ID of the one before, until a page comes short.
    func enumerate(_ store: any StateStore, limit: Int) async throws -> [[String]] {
        var pages: [[String]] = []
        var cursor: UserID?
        while true {
            let page = try await store.users(after: cursor, limit: limit)
            pages.append(page.map(\.userID.rawValue))
            guard page.count == limit, let last = page.last else { return pages }
            cursor = last.userID
        }
    }

    /// Users come in ascending byte order, `limit` to a page, each page after the cursor; the
    /// last page is the short one, and an empty store has one empty page.
    @Test(arguments: StoreBackend.allCases)
    func usersComeInByteOrderPageByPage(_ backend: StoreBackend) async throws {
        let store = try backend.open(now: start).store
        #expect(try await store.users(after: nil, limit: 10).isEmpty)
        for id in Self.ids { try await report(store, id) }
        let pages = try await enumerate(store, limit: 4)
        let sorted = Self.ids.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        #expect(Array(pages.joined()) == sorted)
        #expect(pages.map(\.count) == [4, 4, 4, 3])
        #expect(try await store.users(after: Fixtures.userID("~x"), limit: 4).isEmpty)
        // A cursor that names no user starts after where it would be.
        #expect(try await store.users(after: Fixtures.userID("a_0"), limit: 2).map(\.userID.rawValue) == ["a_1", "aa"])
        // The records are the users' own, as `record(_:)` reads them.
        let first = try #require(try await store.users(after: nil, limit: 1).first)
        #expect(try await store.record(first.userID) == first)
        await store.close()
    }

    /// A user created after the cursor meanwhile is visited, one created before it or deleted
    /// is not; nobody who exists throughout is visited twice or missed.
    @Test(arguments: StoreBackend.allCases)
    func usersThatComeAndGoMeanwhile(_ backend: StoreBackend) async throws {
        let store = try backend.open(now: start).store
        for id in ["c", "e", "g", "i", "k"] { try await report(store, id) }
        let first = try await store.users(after: nil, limit: 2).map(\.userID.rawValue)
        #expect(first == ["c", "e"])
        try await report(store, "a", at: 1)
        try await report(store, "h", at: 1)
        #expect(try await store.delete(Fixtures.userID("i"), at: start.addingTimeInterval(2)))
        let rest = try await store.users(after: Fixtures.userID("e"), limit: 10).map(\.userID.rawValue)
        #expect(rest == ["g", "h", "k"])
        await store.close()
    }

    /// Users added between pages on both sides of the cursor: still every one in order,
    /// exactly once, and those before the cursor not at all.
    @Test(arguments: [StoreBackend.files, .parts, .memory])
    func usersAddedBetweenPages(_ backend: StoreBackend) async throws {
        let store = try backend.open(now: start).store
        for index in stride(from: 100, to: 400, by: 2) { try await report(store, "u\(index)") }
        var seen: [String] = []
        var cursor: UserID?
        var added = 101
        while true {
            let page = try await store.users(after: cursor, limit: 50)
            seen += page.map(\.userID.rawValue)
            guard page.count == 50, let last = page.last else { break }
            cursor = last.userID
            for _ in 0..<50 where added < 400 {
                try await report(store, "u\(added)", at: 1)
                added += 2
            }
        }
        #expect(seen == seen.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) })
        #expect(Set(seen).count == seen.count)
        #expect(Set(seen).isSuperset(of: stride(from: 100, to: 400, by: 2).map { "u\($0)" }))
        #expect(!seen.contains("u101"))
        #expect(seen.contains("u399"))
        await store.close()
    }
}
