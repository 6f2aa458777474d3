import Foundation
import RemindCore

/// A PostgreSQL connection URL (`postgresql://user:password@host:port/database?host=/run/postgresql`),
/// read into what a client needs. Its `description` never shows the password, so the URL can
/// be logged and shown in the effective configuration.
///
/// The `host` query parameter names a directory holding the server's Unix socket (libpq's
/// rule: a host starting with `/` is a socket directory); `sslmode` is `disable`, `prefer`
/// (the default over TCP) or `require`.
public struct DatabaseURL: Sendable, Equatable, CustomStringConvertible {
    public enum Endpoint: Sendable, Equatable {
        /// The socket file itself: `<directory>/.s.PGSQL.<port>`.
        case unixSocket(path: String)
        case tcp(host: String, port: Int)
    }

    public enum TLSMode: String, Sendable, Equatable {
        case disable, prefer, require
    }

    public var endpoint: Endpoint
    public var username: String
    public var password: String?
    public var database: String
    public var tls: TLSMode

    /// Reads a URL; the error's reason never quotes the URL, which may hold a password.
    public init(parsing text: String, field: String) throws(ValidationError) {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let components = URLComponents(string: trimmed),
            components.scheme == "postgresql" || components.scheme == "postgres"
        else {
            throw ValidationError(field: field, reason: "must be a postgresql:// URL")
        }
        var socketDirectory: String?
        var tls: TLSMode?
        for item in components.queryItems ?? [] {
            switch item.name {
            case "host":
                socketDirectory = item.value
            case "sslmode":
                guard let mode = item.value.flatMap(TLSMode.init(rawValue:)) else {
                    throw ValidationError(field: field, reason: "sslmode must be disable, prefer or require")
                }
                tls = mode
            case "application_name", "connect_timeout":
                continue
            default:
                throw ValidationError(
                    field: field,
                    reason: "unknown URL parameter \"\(item.name)\" (host, sslmode, application_name, connect_timeout)")
            }
        }
        let port = components.port ?? 5432
        guard (1...65535).contains(port) else { throw ValidationError(field: field, reason: "port out of range") }
        let host = components.host.flatMap { $0.isEmpty ? nil : $0.removingPercentEncoding }
        if let directory = socketDirectory ?? (host?.hasPrefix("/") == true ? host : nil) {
            guard directory.hasPrefix("/") else {
                throw ValidationError(field: field, reason: "the host parameter must be an absolute socket directory")
            }
            endpoint = .unixSocket(path: directory + "/.s.PGSQL.\(port)")
        } else if let host {
            endpoint = .tcp(host: host, port: port)
        } else {
            throw ValidationError(field: field, reason: "needs a host, or ?host=/socket/directory")
        }
        guard let user = components.user?.removingPercentEncoding, !user.isEmpty else {
            throw ValidationError(field: field, reason: "needs a user name (postgresql://USER@…)")
        }
        username = user
        password = components.password?.removingPercentEncoding
        let path = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        let name = path.removingPercentEncoding ?? path
        database = name.isEmpty ? user : name
        if case .unixSocket = endpoint { self.tls = tls ?? .disable } else { self.tls = tls ?? .prefer }
    }

    /// The URL with the password replaced by `***`: safe for logs and answers.
    public var description: String {
        var text = "postgresql://\(username)"
        if password != nil { text += ":***" }
        switch endpoint {
        case .unixSocket(let path):
            let directory = String(path[..<(path.lastIndex(of: "/") ?? path.endIndex)])
            text += "@/\(database)?host=\(directory)"
        case .tcp(let host, let port):
            text += "@\(host):\(port)/\(database)?sslmode=\(tls.rawValue)"
        }
        return text
    }
}
