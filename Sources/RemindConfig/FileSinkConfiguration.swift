import RemindCore

/// A `file` sink: one JSON line per event appended to `path`, fsync'd before it counts.
public struct FileSinkConfiguration: Sendable, Equatable {
    /// Absolute, or relative to the daemon's working directory.
    public var path: String

    public init(path: String) {
        self.path = path
    }

    init(reader: inout JSONObjectReader) throws(ValidationError) {
        self.init(path: try reader.required(reader.path("path"), "path"))
    }

    var members: [(key: String, value: JSONValue)] {
        [(key: "path", value: .string(path))]
    }
}
