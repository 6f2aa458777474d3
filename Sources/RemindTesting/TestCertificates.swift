import Foundation

/// A throwaway PKI made with the `openssl` CLI in a directory of the test's: a CA, a server
/// certificate for 127.0.0.1 from it, a client certificate from it, and a client certificate
/// from a stranger CA. Real files, as an operator would make them (docs/api.md shows the same
/// commands). EC P-256 keys keep it fast.
public struct TestCertificates: Sendable {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    public let directory: String
    public var caFile: String { directory + "/ca.pem" }
    public var serverCert: String { directory + "/server.pem" }
    public var serverKey: String { directory + "/server.key" }
    public var clientCert: String { directory + "/client.pem" }
    public var clientKey: String { directory + "/client.key" }
    public var strangerCert: String { directory + "/stranger-client.pem" }
    public var strangerKey: String { directory + "/stranger-client.key" }

    /// Makes every file in `directory`, which must exist.
    public init(directory: String) throws {
        self.directory = directory
        try makeCA("ca")
        try makeCA("stranger-ca")
        try issue("server", by: "ca", commonName: "127.0.0.1", extensions: "subjectAltName=IP:127.0.0.1")
        try issue("client", by: "ca", commonName: "remindctl", extensions: "extendedKeyUsage=clientAuth")
        try issue(
            "stranger-client", by: "stranger-ca", commonName: "remindctl", extensions: "extendedKeyUsage=clientAuth")
    }

    /// Issues `name.pem` and `name.key` from the CA `issuer` (a new key each time, so a renewed
    /// certificate differs from the old one); returns the certificate's SHA-256 fingerprint.
    @discardableResult
    public func issue(_ name: String, by issuer: String, commonName: String, extensions: String) throws -> String {
        let path = directory + "/" + name
        try openssl(
            "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", path + ".key",
            "-out", path + ".csr", "-subj", "/CN=\(commonName)")
        try extensions.write(toFile: path + ".ext", atomically: true, encoding: .utf8)
        try openssl(
            "x509", "-req", "-in", path + ".csr", "-CA", "\(directory)/\(issuer).pem", "-CAkey",
            "\(directory)/\(issuer).key", "-set_serial", "\(UInt32.random(in: 1...UInt32.max))", "-days", "2",
            "-extfile", path + ".ext", "-out", path + ".pem")
        return try fingerprint(path + ".pem")
    }

    /// The SHA-256 fingerprint of the PEM certificate at `path`, as `openssl x509` prints it.
    public func fingerprint(_ path: String) throws -> String {
        let output = try openssl("x509", "-in", path, "-noout", "-fingerprint", "-sha256")
        return output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private func makeCA(_ name: String) throws {
        let path = directory + "/" + name
        try openssl(
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout",
            path + ".key", "-out", path + ".pem", "-days", "2", "-subj", "/CN=\(name)", "-addext",
            "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign")
    }

    @discardableResult
    private func openssl(_ arguments: String...) throws -> String {
        let result = try SpawnedProcess.run("/usr/bin/openssl", arguments)
        guard result.status == 0 else {
            throw Failure(description: "openssl \(arguments.joined(separator: " ")): \(result.standardError)")
        }
        return result.standardOutput
    }
}
