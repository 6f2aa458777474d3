import RemindCore

/// An RFC 9457 problem details body (`application/problem+json`).
///
/// `field` is an extension member naming the offending input, so a client can point at it.
public struct Problem: Error, Sendable, Equatable {
    public static let mediaType = "application/problem+json"

    public var status: Int
    public var title: String
    public var detail: String
    /// The request field, flag or key path at fault, when there is one.
    public var field: String?
    /// A URI reference identifying the problem type; `about:blank` means "see status".
    public var type: String

    public init(status: Int, title: String, detail: String, field: String? = nil, type: String = "about:blank") {
        self.status = status
        self.title = title
        self.detail = detail
        self.field = field
        self.type = type
    }

    public var jsonBytes: [UInt8] {
        var writer = JSONWriter()
        writer.beginObject()
        writer.member("type", type)
        writer.member("title", title)
        writer.member("status", status)
        writer.member("detail", detail)
        if let field { writer.member("field", field) }
        writer.endObject()
        return writer.bytes
    }
}

extension Problem {
    public init?(json bytes: some Collection<UInt8>) {
        guard case .object(let object)? = try? JSONParser.parse(bytes) else { return nil }
        var reader = JSONObjectReader(object)
        guard let status = try? reader.integer("status", in: 100...599) else { return nil }
        self.init(
            status: Int(status),
            title: (try? reader.string("title")) ?? "",
            detail: (try? reader.string("detail")) ?? "",
            field: try? reader.string("field"),
            type: (try? reader.string("type")) ?? "about:blank")
    }
}
