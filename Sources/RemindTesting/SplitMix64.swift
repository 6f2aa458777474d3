/// SplitMix64 (Steele, Lea and Flood): a tiny, fast PRNG whose whole state is its seed, so a
/// failing case reproduces from the seed printed with it.
public struct SplitMix64: RandomNumberGenerator {
    public private(set) var state: UInt64

    public init(seed: UInt64) {
        state = seed
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// True with probability `probability`.
    public mutating func chance(_ probability: Double) -> Bool {
        Double.random(in: 0..<1, using: &self) < probability
    }

    public mutating func int(_ range: ClosedRange<Int>) -> Int {
        Int.random(in: range, using: &self)
    }

    public mutating func int64(_ range: ClosedRange<Int64>) -> Int64 {
        Int64.random(in: range, using: &self)
    }

    public mutating func element<T>(_ elements: [T]) -> T {
        elements[Int.random(in: 0..<elements.count, using: &self)]
    }

    /// Picks one of `choices` with probability proportional to its weight.
    public mutating func weighted<T>(_ choices: [(T, Int)]) -> T {
        let total = choices.reduce(0) { $0 + $1.1 }
        var pick = Int.random(in: 0..<total, using: &self)
        for (value, weight) in choices {
            if pick < weight { return value }
            pick -= weight
        }
        return choices[choices.count - 1].0
    }
}
