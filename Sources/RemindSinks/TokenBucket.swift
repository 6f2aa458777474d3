/// A token bucket: `ratePerSecond` tokens a second, at most `burst` saved up. Each delivery
/// takes one; when none is left, the dispatcher waits for the next. This is what keeps a
/// catch-up after an outage, or a million reminders due at once, from flooding a receiver.
///
/// Pure: it takes the elapsed time and says how long to wait, so tests need no clock.
public struct TokenBucket: Sendable, Equatable {
    public let ratePerSecond: Double
    public let burst: Double
    private(set) var tokens: Double

    /// `burst` defaults to one second's worth (at least one token).
    public init(ratePerSecond: Double, burst: Int? = nil) {
        self.ratePerSecond = ratePerSecond
        self.burst = Double(burst ?? max(1, Int(ratePerSecond.rounded(.up))))
        self.tokens = self.burst
    }

    /// Adds the tokens earned over `elapsed` seconds, up to the burst.
    public mutating func refill(elapsed: Double) {
        tokens = min(burst, tokens + max(0, elapsed) * ratePerSecond)
    }

    /// Takes a token if there is one (returns 0), else returns the seconds until there will
    /// be one, taking nothing.
    public mutating func take() -> Double {
        if tokens >= 1 {
            tokens -= 1
            return 0
        }
        return (1 - tokens) / ratePerSecond
    }
}
