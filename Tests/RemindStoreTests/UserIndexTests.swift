import RemindCore
import Testing

@testable import RemindStore

/// The files backend's sorted index of IDs (`UserIndex`): pages from it stay in byte order with
/// IDs added in the thousands (sorted in once there are enough) and deleted ones skipped.
struct UserIndexTests {
    func id(_ text: String) -> UserID { try! UserID(text) }

    /// Added IDs are merged into the pages before and after the sort that takes them in;
    /// absent ones are skipped; the end drops the index.
    @Test func pagesStayOrderedAcrossAdditionsAndDeletions() {
        var present = Set((0..<1_000).map { id("u\($0 * 10)") })
        var index = UserIndex()
        var seen: [UserID] = []
        var cursor: UserID?
        var next = 1
        while true {
            let page = index.page(after: cursor, limit: 100, all: { present }, isPresent: { present.contains($0) })
            seen += page
            guard page.count == 100, let last = page.last else { break }
            cursor = last
            // 2,000 new IDs a page, past the merge threshold every few pages, and a deletion.
            for _ in 0..<2_000 where next < 10_000 {
                let new = id("u\(next)")
                if next % 10 != 0, present.insert(new).inserted { index.noteAdded(new) }
                next += 1
            }
            present.remove(id("u9990"))
        }
        #expect(seen == seen.sorted())
        #expect(Set(seen).count == seen.count)
        #expect(!seen.contains(id("u9990")))
        #expect(Set(seen).isSuperset(of: (0..<999).map { id("u\($0 * 10)") }))
    }
}
