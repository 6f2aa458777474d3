import Foundation

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

/// HTTP/1.1 over a Unix socket, one request per connection: what remindctl and the tests
/// need, without a curl subprocess or an event loop.
public struct UnixHTTPClient: Sendable {
    public let socketPath: String
    public var timeoutSeconds: Int

    public init(socketPath: String, timeoutSeconds: Int = 30) {
        self.socketPath = socketPath
        self.timeoutSeconds = timeoutSeconds
    }

    public func send(
        _ method: String, _ path: String, body: [UInt8]? = nil, headers: [String: String] = [:]
    ) throws(ClientError) -> HTTPReply {
        let fd = try connect()
        defer { close(fd) }
        var request = "\(method) \(path) HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n"
        for (name, value) in headers { request += "\(name): \(value)\r\n" }
        if let body {
            if headers["Content-Type"] == nil { request += "Content-Type: application/json\r\n" }
            request += "Content-Length: \(body.count)\r\n"
        }
        request += "\r\n"
        var bytes = Array(request.utf8)
        if let body { bytes += body }
        try write(fd, bytes)
        return try readReply(fd)
    }

    private func connect() throws(ClientError) -> Int32 {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else {
            throw ClientError(kind: .unreachable, message: "socket: \(String(cString: strerror(errno)))")
        }
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let path = Array(socketPath.utf8)
        guard path.count < MemoryLayout.size(ofValue: address.sun_path) else {
            close(fd)
            throw ClientError(kind: .unreachable, message: "socket path too long: \(socketPath)")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in path.enumerated() { raw[index] = byte }
        }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard result == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw ClientError(kind: .unreachable, message: "cannot connect to \(socketPath): \(reason)")
        }
        return fd
    }

    private func write(_ fd: Int32, _ bytes: [UInt8]) throws(ClientError) {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes {
                Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
            }
            if sent < 0 {
                if errno == EINTR { continue }
                throw ClientError(kind: .protocolError, message: "send: \(String(cString: strerror(errno)))")
            }
            offset += sent
        }
    }

    private func readReply(_ fd: Int32) throws(ClientError) -> HTTPReply {
        var data: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count < 0 {
                if errno == EINTR { continue }
                throw ClientError(kind: .protocolError, message: "recv: \(String(cString: strerror(errno)))")
            }
            if count == 0 { break }
            data += chunk[0..<count]
            if let reply = Self.parse(data) { return reply }
        }
        guard let reply = Self.parse(data, complete: true) else {
            throw ClientError(
                kind: .protocolError, message: "the daemon closed the connection without a complete reply")
        }
        return reply
    }

    /// Parses a reply once it is complete (by Content-Length, chunked encoding, or close).
    static func parse(_ data: [UInt8], complete: Bool = false) -> HTTPReply? {
        let separator: [UInt8] = [13, 10, 13, 10]
        guard let end = data.indices.first(where: { data[$0...].starts(with: separator) }) else { return nil }
        let head = String(decoding: data[..<end], as: UTF8.self).components(separatedBy: "\r\n")
        let statusParts = head[0].split(separator: " ")
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else { return nil }
        var headers: [String: String] = [:]
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
                in: .whitespaces)
        }
        let body = Array(data[(end + 4)...])
        if let length = headers["content-length"].flatMap(Int.init) {
            return body.count >= length
                ? HTTPReply(status: status, headers: headers, body: Array(body.prefix(length))) : nil
        }
        if headers["transfer-encoding"]?.lowercased() == "chunked" {
            guard let decoded = decodeChunked(body) else { return nil }
            return HTTPReply(status: status, headers: headers, body: decoded)
        }
        if status == 204 || status == 304 { return HTTPReply(status: status, headers: headers, body: []) }
        return complete ? HTTPReply(status: status, headers: headers, body: body) : nil
    }

    /// The body of a complete chunked message; nil until the last chunk arrived.
    static func decodeChunked(_ body: [UInt8]) -> [UInt8]? {
        var output: [UInt8] = []
        var index = 0
        while true {
            guard let lineEnd = body[index...].indices.first(where: { body[$0...].starts(with: [13, 10]) }) else {
                return nil
            }
            let sizeText = String(decoding: body[index..<lineEnd], as: UTF8.self).split(separator: ";").first ?? ""
            guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16) else { return nil }
            index = lineEnd + 2
            if size == 0 { return output }
            guard index + size + 2 <= body.count else { return nil }
            output += body[index..<(index + size)]
            index += size + 2
        }
    }
}

extension UnixHTTPClient {
    /// The same request without blocking a cooperative thread: the call runs on a thread of
    /// its own (not Dispatch's pool, which many blocked calls would starve).
    public func request(
        _ method: String, _ path: String, body: [UInt8]? = nil, headers: [String: String] = [:]
    ) async throws -> HTTPReply {
        try await withCheckedThrowingContinuation { continuation in
            Thread {
                do {
                    continuation.resume(returning: try send(method, path, body: body, headers: headers))
                } catch {
                    continuation.resume(throwing: error)
                }
            }.start()
        }
    }
}
