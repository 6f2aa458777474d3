/// How a sink retries a failed delivery: exponential backoff with full jitter from
/// `initialBackoffSeconds` up to `maxBackoffSeconds`, then dead-lettering after `maxAttempts`.
///
/// A value of its own in the core because two modules share it: the configuration reads it
/// (RemindConfig) and the dispatcher applies it (RemindSinks).
public struct RetryPolicy: Sendable, Equatable {
    public static let `default` = RetryPolicy()

    public var initialBackoffSeconds: Double
    public var maxBackoffSeconds: Double
    /// Attempts in all, the first one included.
    public var maxAttempts: Int

    public init(initialBackoffSeconds: Double = 1, maxBackoffSeconds: Double = 3600, maxAttempts: Int = 12) {
        self.initialBackoffSeconds = initialBackoffSeconds
        self.maxBackoffSeconds = maxBackoffSeconds
        self.maxAttempts = maxAttempts
    }
}
