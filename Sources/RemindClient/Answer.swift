/// A successful answer from the daemon: the decoded value and the exact bytes it came from.
///
/// The bytes are kept because `remindctl --json` prints the API's JSON as it was sent, not a
/// re-encoding of what the client understood of it.
public struct Answer<Value: Sendable>: Sendable {
    public var value: Value
    /// The HTTP status (200, or 204 for a forgotten user).
    public var status: Int
    /// The body as received.
    public var body: [UInt8]

    public init(value: Value, status: Int, body: [UInt8]) {
        self.value = value
        self.status = status
        self.body = body
    }
}
