import Foundation
import RemindCore
import _CryptoExtras

/// The parts of a Google service-account key file (the JSON downloaded from the Firebase or
/// Cloud console) that the FCM HTTP v1 API needs.
public struct GoogleServiceAccount: Sendable {
    public struct FileError: Error, CustomStringConvertible {
        /// The member at fault (`private_key`), empty for the file as a whole.
        public let member: String
        public let description: String
    }

    public static let scope = "https://www.googleapis.com/auth/firebase.messaging"

    public let clientEmail: String
    public let projectID: String
    public let tokenURI: String
    let privateKey: _RSA.Signing.PrivateKey

    /// Reads the file's JSON. Errors name the member; they never quote the key.
    public init(json bytes: [UInt8]) throws(FileError) {
        guard case .object(let object)? = try? JSONParser.parse(bytes) else {
            throw FileError(member: "", description: "is not a JSON object (a service-account key file)")
        }
        var reader = JSONObjectReader(object)
        func required(_ key: String) throws(FileError) -> String {
            guard let text = try? reader.string(key), !text.isEmpty else {
                throw FileError(member: key, description: "has no \(key) (not a service-account key file?)")
            }
            return text
        }
        clientEmail = try required("client_email")
        projectID = try required("project_id")
        tokenURI = try required("token_uri")
        let pem = try required("private_key")
        do {
            privateKey = try _RSA.Signing.PrivateKey(pemRepresentation: pem)
        } catch {
            throw FileError(member: "private_key", description: "has a private_key that is not an RSA key in PEM")
        }
        guard let url = URL(string: tokenURI), url.scheme == "https" || url.scheme == "http", url.host != nil else {
            throw FileError(member: "token_uri", description: "has a token_uri that is not an http(s) URL")
        }
    }

    /// The signed assertion of the JWT bearer grant (RFC 7523): valid for an hour from `now`.
    func assertion(now: Date) -> String {
        let issuedAt = Int64(now.timeIntervalSince1970)
        return JSONWebToken.make(
            header: [("alg", .string("RS256")), ("typ", .string("JWT"))],
            claims: [
                ("iss", .string(clientEmail)), ("scope", .string(Self.scope)), ("aud", .string(tokenURI)),
                ("iat", .int(issuedAt)), ("exp", .int(issuedAt + 3600)),
            ]
        ) { input in
            Array((try? privateKey.signature(for: input, padding: .insecurePKCS1v1_5))?.rawRepresentation ?? Data())
        }
    }
}
