extension Duration {
    /// The duration in seconds, for rates, metrics and the token bucket.
    var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }
}
