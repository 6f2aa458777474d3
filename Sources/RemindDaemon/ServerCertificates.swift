import Foundation
import NIOSSL
import RemindConfig
import RemindCore
import Synchronization

/// The TCP listener's TLS context, built from `listen.tls` at start and rebuilt at every reload,
/// so a renewed certificate is served to new connections without a restart. Each connection
/// takes the context current when it is accepted; connections already open keep theirs.
///
/// A file that is missing, unreadable, malformed or does not match is a configuration error
/// naming the `listen.tls` key that set it: at start the daemon exits 78, at reload the context
/// in use stays.
final class ServerCertificates: Sendable {
    private struct Loaded {
        var files: TLSFiles
        var context: NIOSSLContext
    }

    private let loaded = Mutex<Loaded?>(nil)

    /// The context for a new connection; nil when the listener serves plain HTTP.
    var context: NIOSSLContext? { loaded.withLock { $0?.context } }

    /// Loads the files at start; from then on the listener serves HTTPS.
    func load(_ files: TLSFiles) throws(ConfigurationError) {
        let context = try Self.context(files)
        loaded.withLock { $0 = Loaded(files: files, context: context) }
    }

    /// Re-reads the files the listener was started with. Does nothing without TLS.
    func reload() throws(ConfigurationError) {
        guard let files = loaded.withLock({ $0?.files }) else { return }
        let context = try Self.context(files)
        loaded.withLock { $0?.context = context }
    }

    /// TLS 1.2 at least: older versions have known weaknesses, and every client that can reach
    /// the API speaks 1.2. With `clientCAFile`, a client certificate signed by it is required.
    static func context(_ files: TLSFiles) throws(ConfigurationError) -> NIOSSLContext {
        let chain = try certificates(files.certFile, field: "certFile")
        let keyBytes = try contents(files.keyFile, field: "keyFile")
        let key: NIOSSLPrivateKey
        do {
            key = try NIOSSLPrivateKey(bytes: keyBytes, format: .pem)
        } catch {
            // The library's error names no key material, but say only what is wrong.
            throw invalid("keyFile", "\(files.keyFile) holds no PEM private key")
        }
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
        configuration.minimumTLSVersion = .tlsv12
        configuration.applicationProtocols = ["http/1.1"]
        if let clientCAFile = files.clientCAFile {
            configuration.trustRoots = .certificates(try certificates(clientCAFile, field: "clientCAFile"))
            configuration.certificateVerification = .noHostnameVerification
        }
        do {
            return try NIOSSLContext(configuration: configuration)
        } catch {
            // Both files parsed, so what is left is BoringSSL refusing a key that is not the
            // certificate's (KEY_VALUES_MISMATCH).
            throw invalid("keyFile", "\(files.keyFile) does not match the certificate in \(files.certFile)")
        }
    }

    private static func certificates(_ path: String, field: String) throws(ConfigurationError) -> [NIOSSLCertificate] {
        let bytes = try contents(path, field: field)
        guard let chain = try? NIOSSLCertificate.fromPEMBytes(bytes), !chain.isEmpty else {
            throw invalid(field, "\(path) holds no PEM certificate")
        }
        return chain
    }

    private static func contents(_ path: String, field: String) throws(ConfigurationError) -> [UInt8] {
        guard FileManager.default.fileExists(atPath: path) else { throw invalid(field, "\(path) does not exist") }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw invalid(field, "cannot read \(path)")
        }
        return Array(data)
    }

    private static func invalid(_ field: String, _ reason: String) -> ConfigurationError {
        ConfigurationError(
            kind: .invalid, path: nil, validationError: ValidationError(field: "listen.tls.\(field)", reason: reason))
    }
}
