import RemindCore

/// `listen.tls`: the PEM files the TCP listener serves HTTPS with. Only the paths are
/// configuration: the daemon reads the files itself (at start and at every reload, so a renewed
/// certificate is served without a restart), and the key never appears in the effective
/// configuration.
public struct TLSFiles: Sendable, Equatable {
    public var certFile: String
    public var keyFile: String
    /// The CA that signs client certificates; when set, a client must present one (mutual TLS)
    /// in addition to the bearer token.
    public var clientCAFile: String?

    public init(certFile: String, keyFile: String, clientCAFile: String? = nil) {
        self.certFile = certFile
        self.keyFile = keyFile
        self.clientCAFile = clientCAFile
    }

    /// Reads the `listen.tls` object. Whether the files exist and hold a matching pair is checked
    /// by the daemon, which has the TLS library; here only their shape.
    public init(object: JSONObject, path: String) throws(ValidationError) {
        var reader = try JSONObjectReader.strict(object, path: path)
        let certFile = try reader.path("certFile")
        let keyFile = try reader.path("keyFile")
        let clientCAFile = try reader.path("clientCAFile")
        try reader.rejectUnknownKeys(context: "in listen.tls (certFile, keyFile, clientCAFile)")
        self.init(
            certFile: try reader.required(certFile, "certFile"), keyFile: try reader.required(keyFile, "keyFile"),
            clientCAFile: clientCAFile)
    }

    public var json: JSONValue {
        .object([
            "certFile": .string(certFile),
            "keyFile": .string(keyFile),
            "clientCAFile": clientCAFile.map(JSONValue.string) ?? .null,
        ])
    }
}
