import RemindCore

extension RetryPolicy {
    public init(object: JSONObject, path: String) throws(ValidationError) {
        var reader = try JSONObjectReader.strict(object, path: path)
        let initial = try reader.positiveSeconds("initialBackoffSeconds") ?? Self.default.initialBackoffSeconds
        let maximum = try reader.positiveSeconds("maxBackoffSeconds") ?? Self.default.maxBackoffSeconds
        let attempts = try reader.integer("maxAttempts", atLeast: 1, atMost: Int64(Int32.max))
        try reader.rejectUnknownKeys(context: "in retry (initialBackoffSeconds, maxBackoffSeconds, maxAttempts)")
        // Checked even when the maximum is the default: an initial backoff above 3600 needs a
        // larger maximum written next to it, rather than one silently raised.
        guard maximum >= initial else {
            throw ValidationError(
                field: reader.fieldPath("maxBackoffSeconds"),
                reason: "must be at least initialBackoffSeconds (\(JSONValue.double(initial).serialized))")
        }
        self.init(
            initialBackoffSeconds: initial,
            maxBackoffSeconds: maximum,
            maxAttempts: attempts.map { Int($0) } ?? Self.default.maxAttempts
        )
    }

    public var json: JSONValue {
        .object([
            "initialBackoffSeconds": .double(initialBackoffSeconds),
            "maxBackoffSeconds": .double(maxBackoffSeconds),
            "maxAttempts": .int(Int64(maxAttempts)),
        ])
    }
}
