import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Which of the 65,536 shard directories under `users/` exist (`users/ab/cd`), so that each
/// is made once, the first time a user file needs it, and never looked up or made again.
/// Filled from the directory at start-up (`UserFiles.prepare`); a shard removed behind the
/// daemon's back is made again when a rename into it fails.
final class ShardDirectories: Sendable {
    private let made = Mutex([UInt64](repeating: 0, count: 65_536 / 64))

    func contains(_ index: Int) -> Bool {
        made.withLock { $0[index >> 6] & (1 << UInt64(index & 63)) != 0 }
    }

    func insert(_ index: Int) {
        made.withLock { $0[index >> 6] |= 1 << UInt64(index & 63) }
    }

    func remove(_ index: Int) {
        made.withLock { $0[index >> 6] &= ~(1 << UInt64(index & 63)) }
    }

    /// The index of shard `ab/cd` (two-digit lowercase hex names), nil for any other name.
    static func index(_ first: String, _ second: String) -> Int? {
        guard first.utf8.count == 2, second.utf8.count == 2, let high = UInt8(first, radix: 16),
            let low = UInt8(second, radix: 16), first == first.lowercased(), second == second.lowercased()
        else { return nil }
        return Int(high) << 8 | Int(low)
    }
}
