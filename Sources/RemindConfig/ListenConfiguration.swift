import RemindCore

/// Where the HTTP API listens: always on a Unix socket, and on TCP only with bearer tokens.
public struct ListenConfiguration: Sendable, Equatable {
    /// `sun_path` holds 108 bytes including the terminating NUL; a longer path cannot be bound,
    /// so it is refused here with the key that set it rather than at bind time.
    public static let maximumSocketPathBytes = 107

    public var socket: String
    /// `host:port` of the optional TCP listener, validated as a `TCPAddress`.
    public var tcp: String?
    /// The file holding the bearer token for TCP clients. Only the path is configuration: the
    /// daemon reads the token itself, so it never appears in the effective configuration.
    public var tokenFile: String?
    /// The file of named, scoped tokens (`AccessTokens`), one `<name> <scope> <token>` a line.
    /// Like `tokenFile`, only the path is configuration.
    public var tokensFile: String?
    /// HTTPS on the TCP listener; nil serves plain HTTP there. The Unix socket never uses TLS.
    public var tls: TLSFiles?

    public init(
        socket: String = ConfigurationLoader.Defaults.system.socket, tcp: String? = nil, tokenFile: String? = nil,
        tokensFile: String? = nil, tls: TLSFiles? = nil
    ) {
        self.socket = socket
        self.tcp = tcp
        self.tokenFile = tokenFile
        self.tokensFile = tokensFile
        self.tls = tls
    }

    /// The parsed TCP address, nil when there is no TCP listener.
    public var tcpAddress: TCPAddress? {
        tcp.flatMap { try? TCPAddress($0) }
    }

    /// Reads the `listen` object; `defaultSocket` stands in when `socket` is absent.
    public init(object: JSONObject, path: String = "listen", defaultSocket: String) throws(ValidationError) {
        var reader = try JSONObjectReader.strict(object, path: path)
        let socket = try reader.path("socket")
        if let socket { try Self.validateSocket(socket, field: reader.fieldPath("socket")) }
        let tcp = try reader.string("tcp")
        if let tcp { _ = try TCPAddress(tcp, field: reader.fieldPath("tcp")) }
        let tokenFile = try reader.path("tokenFile")
        let tokensFile = try reader.path("tokensFile")
        let tlsObject = try reader.strictObject("tls")
        let tls = try tlsObject.map { (object) throws(ValidationError) in
            try TLSFiles(object: object, path: reader.fieldPath("tls"))
        }
        try reader.rejectUnknownKeys(context: "in listen (socket, tcp, tokenFile, tokensFile, tls)")
        // An unauthenticated TCP listener would let anyone on the network change state.
        if tcp != nil, tokenFile == nil, tokensFile == nil {
            throw ValidationError(
                field: reader.fieldPath("tokenFile"), reason: "or listen.tokensFile is required when listen.tcp is set")
        }
        // TLS applies to the TCP listener only: without one the files would be read for nothing.
        if tls != nil, tcp == nil {
            throw ValidationError(
                field: reader.fieldPath("tls"), reason: "needs listen.tcp; the Unix socket never uses TLS")
        }
        self.init(socket: socket ?? defaultSocket, tcp: tcp, tokenFile: tokenFile, tokensFile: tokensFile, tls: tls)
    }

    /// Checks a socket path from any source; `field` names that source in the error.
    public static func validateSocket(_ path: String, field: String) throws(ValidationError) {
        if let reason = PathRule.problem(path) {
            throw ValidationError(field: field, reason: reason)
        }
        let length = path.utf8.count
        if length > maximumSocketPathBytes {
            throw ValidationError(
                field: field,
                reason: "is \(length) bytes long; a Unix socket path can have at most \(maximumSocketPathBytes)")
        }
    }

    public var json: JSONValue {
        .object([
            "socket": .string(socket),
            "tcp": tcp.map(JSONValue.string) ?? .null,
            "tokenFile": tokenFile.map(JSONValue.string) ?? .null,
            "tokensFile": tokensFile.map(JSONValue.string) ?? .null,
            "tls": tls?.json ?? .null,
        ])
    }
}
