import Foundation

/// Draws from Gamma and Beta distributions over a caller's generator, so a seeded generator
/// gives reproducible draws (Foundation has no such sampler).
///
/// Gamma(shape ≥ 1) by Marsaglia and Tsang's squeeze method ("A simple method for generating
/// gamma variables", 2000); shape < 1 by drawing Gamma(shape + 1) and scaling by U^(1/shape).
/// Beta(a, b) is X / (X + Y) for X ~ Gamma(a), Y ~ Gamma(b).
public enum BetaSampler {
    public static func beta<G: RandomNumberGenerator>(_ a: Double, _ b: Double, using generator: inout G) -> Double {
        let x = gamma(a, using: &generator)
        let y = gamma(b, using: &generator)
        let sum = x + y
        // Both can underflow to 0 only for tiny shapes; the mean is the honest answer then.
        return sum > 0 ? x / sum : a / (a + b)
    }

    public static func gamma<G: RandomNumberGenerator>(_ shape: Double, using generator: inout G) -> Double {
        precondition(shape > 0, "a gamma shape must be positive")
        if shape < 1 {
            let u = openUnit(&generator)
            return gamma(shape + 1, using: &generator) * pow(u, 1 / shape)
        }
        let d = shape - 1.0 / 3.0
        let c = 1 / (9 * d).squareRoot()
        while true {
            var x: Double
            var v: Double
            repeat {
                x = normal(&generator)
                v = 1 + c * x
            } while v <= 0
            v = v * v * v
            let u = openUnit(&generator)
            let x2 = x * x
            if u < 1 - 0.0331 * x2 * x2 { return d * v }
            if log(u) < 0.5 * x2 + d * (1 - v + log(v)) { return d * v }
        }
    }

    /// A standard normal draw (Marsaglia's polar method).
    static func normal<G: RandomNumberGenerator>(_ generator: inout G) -> Double {
        while true {
            let u = 2 * unit(&generator) - 1
            let v = 2 * unit(&generator) - 1
            let s = u * u + v * v
            if s > 0 && s < 1 { return u * (-2 * log(s) / s).squareRoot() }
        }
    }

    static func unit<G: RandomNumberGenerator>(_ generator: inout G) -> Double {
        Double(generator.next() >> 11) * 0x1.0p-53
    }

    /// A uniform double in (0, 1): never 0, whose logarithm would be −∞.
    static func openUnit<G: RandomNumberGenerator>(_ generator: inout G) -> Double {
        (Double(generator.next() >> 11) + 0.5) * 0x1.0p-53
    }
}
