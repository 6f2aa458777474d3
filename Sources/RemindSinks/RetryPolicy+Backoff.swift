import RemindCore

/// The backoff of DESIGN §1: exponential with full jitter (a random wait between zero and the
/// exponential bound), so that receivers recovering from an outage are not hit by every retry
/// at once.
extension RetryPolicy {
    /// The upper bound of the wait after `attempt` failed attempts (1-based).
    public func backoffBound(afterAttempt attempt: Int) -> Double {
        let exponent = Double(max(0, attempt - 1))
        return min(maxBackoffSeconds, initialBackoffSeconds * pow2(exponent))
    }

    /// The wait after `attempt` failed attempts: uniform in `[0, bound]`, or the receiver's
    /// `retryAfter` when it gave one (capped at the maximum backoff).
    public func delay(
        afterAttempt attempt: Int, retryAfter: Double?, using random: inout some RandomNumberGenerator
    )
        -> Double
    {
        if let retryAfter { return min(max(0, retryAfter), maxBackoffSeconds) }
        return Double.random(in: 0...backoffBound(afterAttempt: attempt), using: &random)
    }

    private func pow2(_ exponent: Double) -> Double {
        exponent >= 60 ? Double.greatestFiniteMagnitude : Double(UInt64(1) << UInt64(exponent))
    }
}
