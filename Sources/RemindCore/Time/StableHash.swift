/// A hash that is the same in every process and on every machine (64-bit FNV-1a).
///
/// Swift's `hashValue` is seeded per process, so it cannot place a user's jitter offset or
/// file shard: both must come out the same after a restart.
public enum StableHash {
    public static func fnv1a64(_ text: String, seed: UInt64 = 0xcbf2_9ce4_8422_2325) -> UInt64 {
        var hash = seed
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        return hash
    }

    /// A stable value in `0..<window` for `key`, or 0 when the window is empty.
    /// `salt` separates independent uses (jitter, catch-up) so they are not correlated.
    public static func offset(for key: String, salt: String = "", window: Int64) -> Int64 {
        guard window > 0 else { return 0 }
        let hash = salt.isEmpty ? fnv1a64(key) : fnv1a64(key, seed: fnv1a64(salt))
        return Int64(hash % UInt64(window))
    }
}
