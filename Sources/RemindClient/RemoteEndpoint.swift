import Foundation
import NIOSSL

/// A daemon reached over its TCP listener instead of the Unix socket: the base URL
/// (`https://host:port`), the CA that signed its certificate, a client certificate and key for
/// mutual TLS, and the bearer token, which TCP always needs.
public struct RemoteEndpoint: Sendable, Equatable {
    public var url: String
    /// PEM CA certificates to verify the daemon with; nil trusts the system's roots.
    public var caFile: String?
    public var certFile: String?
    public var keyFile: String?
    /// The token itself, read by the caller from a file: never from a command line, where
    /// `ps` would show it.
    public var token: String?

    public init(
        url: String, caFile: String? = nil, certFile: String? = nil, keyFile: String? = nil, token: String? = nil
    ) {
        self.url = url
        self.caFile = caFile
        self.certFile = certFile
        self.keyFile = keyFile
        self.token = token
    }

    /// The URL of `path` on this daemon.
    func url(of path: String) -> URL? {
        var base = url
        while base.hasSuffix("/") { base.removeLast() }
        return URL(string: base + path)
    }

    /// TLS 1.2 at least, like the daemon; the daemon's name (or IP address) is verified.
    func tlsConfiguration() throws(ClientError) -> TLSConfiguration {
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.minimumTLSVersion = .tlsv12
        do {
            if let caFile {
                configuration.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(caFile))
            }
            if let certFile {
                configuration.certificateChain = try NIOSSLCertificate.fromPEMFile(certFile).map { .certificate($0) }
            }
            if let keyFile {
                configuration.privateKey = .privateKey(try NIOSSLPrivateKey(file: keyFile, format: .pem))
            }
        } catch {
            // Only which files: the library's error says nothing more useful, and a key's
            // contents never go into a message.
            let files = [caFile, certFile, keyFile].compactMap { $0 }.joined(separator: ", ")
            throw ClientError(kind: .protocolError, message: "cannot load the TLS files \(files): \(error)")
        }
        return configuration
    }
}
