import Crypto
import Foundation
import RemindCore
import _CryptoExtras

/// Checks a compact JSON Web Token the way APNs and Google do: the signature with the public
/// key, and returns the header and claims for the test to inspect. Nil when anything is off.
public enum JWTVerifier {
    public struct Token: Sendable {
        public var header: JSONObject
        public var claims: JSONObject
    }

    public static func verifyES256(_ token: String, key: P256.Signing.PublicKey) -> Token? {
        guard let (input, signature, decoded) = split(token), decoded.header["alg"] == .string("ES256"),
            let ecdsa = try? P256.Signing.ECDSASignature(rawRepresentation: signature),
            key.isValidSignature(ecdsa, for: Array(input.utf8))
        else { return nil }
        return decoded
    }

    public static func verifyRS256(_ token: String, key: _RSA.Signing.PublicKey) -> Token? {
        guard let (input, signature, decoded) = split(token), decoded.header["alg"] == .string("RS256"),
            key.isValidSignature(
                _RSA.Signing.RSASignature(rawRepresentation: signature), for: Array(input.utf8),
                padding: .insecurePKCS1v1_5)
        else { return nil }
        return decoded
    }

    private static func split(_ token: String) -> (String, Data, Token)? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3, let header = decode(parts[0]), let claims = decode(parts[1]),
            let signature = base64URL(parts[2]),
            case .object(let headerObject)? = try? JSONParser.parse(Array(header)),
            case .object(let claimsObject)? = try? JSONParser.parse(Array(claims))
        else { return nil }
        return (parts[0] + "." + parts[1], signature, Token(header: headerObject, claims: claimsObject))
    }

    private static func decode(_ part: String) -> Data? { base64URL(part) }

    static func base64URL(_ text: String) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64)
    }
}
