import Foundation
import RemindCore

/// A compact JSON Web Token (RFC 7519): `base64url(header).base64url(claims).base64url(sig)`.
///
/// Both tokens remindd makes are signed with a key it holds (ES256 for APNs, RS256 for the
/// Google grant), so only signing is needed here; the tests verify with the public keys.
enum JSONWebToken {
    /// Signs `header` and `claims` (already-built JSON members) with `sign`, which gets the
    /// bytes of the signing input and returns the raw signature.
    static func make(
        header: [(String, JSONValue)], claims: [(String, JSONValue)], sign: ([UInt8]) throws -> [UInt8]
    ) rethrows -> String {
        let input = Base64URL.encode(encode(header)) + "." + Base64URL.encode(encode(claims))
        let signature = try sign(Array(input.utf8))
        return input + "." + Base64URL.encode(signature)
    }

    private static func encode(_ members: [(String, JSONValue)]) -> [UInt8] {
        var writer = JSONWriter()
        writer.value(.object(JSONObject(members.map { (key: $0.0, value: $0.1) })))
        return writer.bytes
    }
}
