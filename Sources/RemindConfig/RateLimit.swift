import RemindCore

/// A sink's token bucket: at most `ratePerSecond` deliveries a second on average, in bursts of
/// up to `burst`. Both nil (the default) is unlimited.
public struct RateLimit: Sendable, Equatable {
    public static let unlimited = RateLimit()
    /// Far above anything a receiver takes; it keeps `1 / rate` and the bucket arithmetic sane.
    public static let maximumRatePerSecond: Double = 1_000_000

    public var ratePerSecond: Double?
    /// The bucket's size; nil leaves the choice to the sink.
    public var burst: Int?

    public init(ratePerSecond: Double? = nil, burst: Int? = nil) {
        self.ratePerSecond = ratePerSecond
        self.burst = burst
    }

    public init(object: JSONObject, path: String) throws(ValidationError) {
        var reader = try JSONObjectReader.strict(object, path: path)
        let rate = try reader.positiveNumber("ratePerSecond", atMost: Self.maximumRatePerSecond)
        let burst = try reader.integer("burst", atLeast: 1, atMost: 1_000_000)
        try reader.rejectUnknownKeys(context: "in rateLimit (ratePerSecond, burst)")
        // A bucket size without a refill rate limits nothing; saying so beats ignoring it.
        if burst != nil, rate == nil {
            throw ValidationError(field: reader.fieldPath("burst"), reason: "needs ratePerSecond to be set")
        }
        self.init(ratePerSecond: rate, burst: burst.map { Int($0) })
    }

    public var json: JSONValue {
        .object([
            "ratePerSecond": ratePerSecond.map(JSONValue.double) ?? .null,
            "burst": burst.map { .int(Int64($0)) } ?? .null,
        ])
    }
}
