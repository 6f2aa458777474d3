import RemindCore

/// The backoff of a sink's `retry`: exponential with full jitter (a random wait between zero and the
/// exponential bound), so that receivers recovering from an outage are not hit by every retry
/// at once.
extension RetryPolicy {
    /// The upper bound of the wait after `attempt` failed attempts (1-based).
    public func backoffBound(afterAttempt attempt: Int) -> Double {
        let exponent = Double(max(0, attempt - 1))
        return min(maxBackoffSeconds, initialBackoffSeconds * pow2(exponent))
    }

    /// The longest `Retry-After` taken as asked: a receiver's mistake (a day, a year) must not
    /// park events that long; an hour is the default maximum backoff.
    public static let retryAfterCeiling: Double = 3600

    /// The wait after `attempt` failed attempts: uniform in `[0, bound]`, and at least the
    /// receiver's `retryAfter` when it gave one (a minimum wait; up to
    /// ``retryAfterCeiling``), even beyond the maximum backoff: retrying sooner than a
    /// throttling service asked is what it throttles.
    public func delay(
        afterAttempt attempt: Int, retryAfter: Double?, using random: inout some RandomNumberGenerator
    )
        -> Double
    {
        let drawn = Double.random(in: 0...backoffBound(afterAttempt: attempt), using: &random)
        guard let retryAfter else { return drawn }
        return max(drawn, min(max(0, retryAfter), Self.retryAfterCeiling))
    }

    private func pow2(_ exponent: Double) -> Double {
        exponent >= 60 ? Double.greatestFiniteMagnitude : Double(UInt64(1) << UInt64(exponent))
    }
}
