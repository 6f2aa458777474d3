import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOSSL

#if canImport(Glibc)
    import Glibc
#endif

/// A reply from the daemon.
public struct HTTPReply: Sendable, Equatable {
    public var status: Int
    /// Header names lower-cased.
    public var headers: [String: String]
    public var body: [UInt8]

    public var text: String { String(decoding: body, as: UTF8.self) }
}

/// Why a request did not get a reply.
public struct ClientError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// Nothing listens on the socket (or it does not exist): remindctl's exit code 3.
        case unreachable
        /// The connection broke or the reply was not HTTP.
        case protocolError
    }

    public var kind: Kind
    public var message: String

    public var description: String { message }
}

/// HTTP/1.1 over the daemon's Unix socket (`http+unix`), or over its TCP listener (HTTPS, with
/// the bearer token) with a ``RemoteEndpoint``, through AsyncHTTPClient.
///
/// The calls are synchronous: remindctl runs one request and exits, and the tests call it
/// from anywhere. Each call waits on AsyncHTTPClient's future, which is allowed off its event
/// loop. Connection attempts are not retried, so "nothing listens on the socket" is an answer
/// (remindctl's exit code 3) at once rather than after a connect timeout.
public struct DaemonHTTPClient: Sendable {
    /// Where the daemon is, for messages: the socket path, or the remote endpoint's URL.
    public let socketPath: String
    public var timeoutSeconds: Int
    public let remote: RemoteEndpoint?

    public init(socketPath: String, timeoutSeconds: Int = 30) {
        self.socketPath = socketPath
        self.timeoutSeconds = timeoutSeconds
        self.remote = nil
    }

    public init(remote: RemoteEndpoint, timeoutSeconds: Int = 30) {
        self.socketPath = remote.url
        self.timeoutSeconds = timeoutSeconds
        self.remote = remote
    }

    /// One client for the process: its event loop and connections are reused by every call.
    static let shared: HTTPClient = {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.decompression = .disabled
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }()

    /// Sends a request and waits for the reply, blocking the calling thread (remindctl's one
    /// call; a test that is not async).
    public func send(
        _ method: String, _ path: String, body: [UInt8]? = nil, headers: [String: String] = [:]
    ) throws(ClientError) -> HTTPReply {
        let request = try makeRequest(method, path, body: body, headers: headers)
        do {
            return Self.reply(try Self.shared.execute(request: request, deadline: deadline).wait())
        } catch {
            throw classify(error)
        }
    }

    /// Sends a request and suspends until the reply, holding no thread meanwhile.
    public func request(
        _ method: String, _ path: String, body: [UInt8]? = nil, headers: [String: String] = [:]
    ) async throws(ClientError) -> HTTPReply {
        let request = try makeRequest(method, path, body: body, headers: headers)
        do {
            return Self.reply(try await Self.shared.execute(request: request, deadline: deadline).get())
        } catch {
            throw classify(error)
        }
    }

    private var deadline: NIODeadline { .now() + .seconds(Int64(timeoutSeconds)) }

    func makeRequest(
        _ method: String, _ path: String, body: [UInt8]?, headers: [String: String]
    ) throws(ClientError) -> HTTPClient.Request {
        let url = remote.map { $0.url(of: path) } ?? URL(httpURLWithSocketPath: socketPath, uri: path)
        guard let url else {
            throw ClientError(kind: .unreachable, message: "cannot make a URL of \(socketPath) and \(path)")
        }
        // One request per connection, as remindctl makes one call: no pooled connection outlives
        // a daemon that restarts on the same socket.
        var fields = HTTPHeaders(headers.map { ($0.key, $0.value) })
        if fields["Connection"].isEmpty { fields.add(name: "Connection", value: "close") }
        if body != nil, fields["Content-Type"].isEmpty { fields.add(name: "Content-Type", value: "application/json") }
        if let token = remote?.token { fields.replaceOrAdd(name: "Authorization", value: "Bearer \(token)") }
        // Per request, so the shared client serves the Unix socket and any remote daemon alike.
        let tls = try remote.map { (remote) throws(ClientError) in try remote.tlsConfiguration() }
        do {
            return try HTTPClient.Request(
                url: url, method: HTTPMethod(rawValue: method), headers: fields, body: body.map { .bytes($0) },
                tlsConfiguration: tls)
        } catch {
            throw ClientError(kind: .protocolError, message: "cannot make the request \(method) \(path): \(error)")
        }
    }

    private static func reply(_ response: HTTPClient.Response) -> HTTPReply {
        var headers: [String: String] = [:]
        for (name, value) in response.headers { headers[name.lowercased()] = value }
        return HTTPReply(
            status: Int(response.status.code), headers: headers,
            body: response.body.map { Array($0.readableBytesView) } ?? [])
    }

    /// Nothing listening (or a socket that cannot be opened) is `unreachable`; everything
    /// after the connection stood is a protocol error.
    func classify(_ error: any Error) -> ClientError {
        if let error = error as? IOError, Self.unreachableErrors.contains(error.errnoCode) {
            return ClientError(
                kind: .unreachable,
                message: "cannot connect to \(socketPath): \(String(cString: strerror(error.errnoCode)))")
        }
        if let error = error as? HTTPClientError, error == .connectTimeout {
            return ClientError(kind: .unreachable, message: "cannot connect to \(socketPath): timed out")
        }
        if let error = error as? HTTPClientError, error == .deadlineExceeded || error == .readTimeout {
            return ClientError(kind: .protocolError, message: "no reply within \(timeoutSeconds) s")
        }
        if let error = error as? HTTPClientError, error == .remoteConnectionClosed {
            return ClientError(
                kind: .protocolError, message: "the daemon closed the connection without a complete reply")
        }
        // No TLS session, no daemon to talk to: the certificate was not trusted, or the daemon
        // wanted a client certificate it did not get.
        if let remote, error is NIOSSLError || error is BoringSSLError {
            return ClientError(
                kind: .unreachable,
                message: "the TLS handshake with \(remote.url) failed: \(error)\n"
                    + "check --cacert, and --cert and --key if remindd requires a client certificate")
        }
        return ClientError(kind: .protocolError, message: "\(error)")
    }

    private static let unreachableErrors: Set<Int32> = [ENOENT, ECONNREFUSED, EACCES, ENOTSOCK, ENAMETOOLONG, EPERM]
}
