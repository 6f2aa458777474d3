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

    /// FNV-1a followed by a finalizer (SplitMix64's) so that every output bit depends on every
    /// input byte: plain FNV-1a's top bits barely change with an ID's last characters, which
    /// put `u-40` … `u-49` in one shard directory.
    public static func mixed(_ text: String, seed: UInt64 = 0xcbf2_9ce4_8422_2325) -> UInt64 {
        var hash = fnv1a64(text, seed: seed)
        hash = (hash ^ (hash >> 30)) &* 0xbf58_476d_1ce4_e5b9
        hash = (hash ^ (hash >> 27)) &* 0x94d0_49bb_1331_11eb
        return hash ^ (hash >> 31)
    }

    /// A stable value in `0..<window` for `key`, or 0 when the window is empty.
    /// `salt` separates independent uses (jitter, catch-up) so they are not correlated.
    public static func offset(for key: String, salt: String = "", window: Int64) -> Int64 {
        guard window > 0 else { return 0 }
        let hash = salt.isEmpty ? mixed(key) : mixed(key, seed: fnv1a64(salt))
        return Int64(hash % UInt64(window))
    }
}
