/// A random number generator that gives the same sequence for the same seed on every machine
/// (xoshiro256**, its state filled by SplitMix64 from the seed).
///
/// The system generator cannot be seeded, and learned weights must come out identical on
/// every instance that computes them from the same counts and the same recompute time.
public struct SeededGenerator: RandomNumberGenerator, Sendable {
    private var state: (UInt64, UInt64, UInt64, UInt64)

    public init(seed: UInt64) {
        var splitMix = seed
        func next() -> UInt64 {
            splitMix &+= 0x9e37_79b9_7f4a_7c15
            var z = splitMix
            z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
            z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
            return z ^ (z >> 31)
        }
        state = (next(), next(), next(), next())
    }

    public mutating func next() -> UInt64 {
        let result = rotate(state.1 &* 5, 7) &* 9
        let t = state.1 << 17
        state.2 ^= state.0
        state.3 ^= state.1
        state.1 ^= state.2
        state.0 ^= state.3
        state.2 ^= t
        state.3 = rotate(state.3, 45)
        return result
    }

    private func rotate(_ x: UInt64, _ k: UInt64) -> UInt64 { (x << k) | (x >> (64 - k)) }

    /// A uniform double in [0, 1) from the top 53 bits.
    public mutating func unit() -> Double { Double(next() >> 11) * 0x1.0p-53 }
}
