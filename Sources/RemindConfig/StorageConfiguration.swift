import Foundation
import RemindCore

/// Where the state lives (docs/operations.md): the state directory's files (the default, no server),
/// or one PostgreSQL database that any number of instances share.
public struct StorageConfiguration: Sendable, Equatable {
    public enum Kind: String, Sendable, Equatable, CaseIterable {
        case files, postgres
    }

    public static let defaultLeaseSeconds = 30
    public static let defaultPoolSize = 10

    public var type: Kind
    /// The URL as written (`url`), or nil when it comes from `urlFile`.
    public var url: DatabaseURL?
    /// A file holding the URL alone, so a password stays out of the configuration.
    public var urlFile: String?
    /// How long a claimed event stays an instance's before another may take it.
    public var leaseSeconds: Int
    /// Connections this instance opens at most.
    public var poolSize: Int
    /// Independent parts the state directory is divided into (files only): reports of users
    /// in different parts are stored on different cores. Fixed for a directory
    /// once it holds state; `remindd migrate` moves a state into another division.
    public var parts: Int

    public init(
        type: Kind = .files, url: DatabaseURL? = nil, urlFile: String? = nil,
        leaseSeconds: Int = defaultLeaseSeconds, poolSize: Int = defaultPoolSize, parts: Int = 1
    ) {
        self.type = type
        self.url = url
        self.urlFile = urlFile
        self.leaseSeconds = leaseSeconds
        self.poolSize = poolSize
        self.parts = parts
    }

    public init(object: JSONObject, path: String = "storage") throws(ValidationError) {
        var reader = try JSONObjectReader.strict(object, path: path)
        let type = try reader.enumeration("type", Kind.self) ?? .files
        let url = try reader.string("url").map { text throws(ValidationError) in
            try DatabaseURL(parsing: text, field: "\(path).url")
        }
        let urlFile = try reader.path("urlFile")
        let lease = try reader.integer("leaseSeconds", atLeast: 2, atMost: 3600)
        let pool = try reader.integer("poolSize", atLeast: 1, atMost: 200)
        let parts = try reader.integer("parts", atLeast: 1, atMost: 64)
        try reader.rejectUnknownKeys(context: "in storage (type, url, urlFile, leaseSeconds, poolSize, parts)")
        if url != nil, urlFile != nil {
            throw ValidationError(field: "\(path).urlFile", reason: "give url or urlFile, not both")
        }
        if type == .postgres, url == nil, urlFile == nil {
            throw ValidationError(field: "\(path).url", reason: "is required with type postgres (or urlFile)")
        }
        if type == .postgres, parts != nil {
            throw ValidationError(
                field: "\(path).parts", reason: "divides the state directory: it applies to type files only")
        }
        if type == .files, url != nil || urlFile != nil {
            throw ValidationError(
                field: "\(path).type", reason: "must be postgres when url or urlFile is given")
        }
        self.init(
            type: type, url: url, urlFile: urlFile, leaseSeconds: lease.map { Int($0) } ?? Self.defaultLeaseSeconds,
            poolSize: pool.map { Int($0) } ?? Self.defaultPoolSize, parts: parts.map { Int($0) } ?? 1)
    }

    /// The database URL: `url`, or the contents of `urlFile` (surrounding whitespace ignored).
    /// The error names the key path and never quotes the file's contents.
    public func resolvedURL(
        read: (String) -> [UInt8]? = { path in FileManager.default.contents(atPath: path).map { Array($0) } }
    ) throws(ValidationError) -> DatabaseURL? {
        if let url { return url }
        guard let urlFile else { return nil }
        guard let bytes = read(urlFile) else {
            throw ValidationError(field: "storage.urlFile", reason: "cannot read \(urlFile)")
        }
        return try DatabaseURL(parsing: String(decoding: bytes, as: UTF8.self), field: "storage.urlFile")
    }

    /// The database's URL for `type` `postgres`, which needs one.
    public func requiredURL() throws(ValidationError) -> DatabaseURL {
        guard let url = try resolvedURL() else {
            throw ValidationError(field: "storage.url", reason: "is required with type postgres")
        }
        return url
    }

    /// The effective configuration: the URL with its password as `***`.
    public var json: JSONValue {
        .object([
            "type": .string(type.rawValue),
            "url": url.map { .string($0.description) } ?? .null,
            "urlFile": urlFile.map(JSONValue.string) ?? .null,
            "leaseSeconds": .int(Int64(leaseSeconds)),
            "poolSize": .int(Int64(poolSize)),
            "parts": .int(Int64(parts)),
        ])
    }
}
