import Crypto
import Foundation
import RemindCore
import Synchronization

/// The APNs provider authentication token: an ES256 JWT over the team's `.p8` key, header
/// `{"alg":"ES256","kid":keyID}`, claims `{"iss":teamID,"iat":…}`.
///
/// APNs wants one token reused for 20 to 60 minutes: it refuses a token older than an hour
/// (`ExpiredProviderToken`) and one refreshed more often than every 20 minutes
/// (`TooManyProviderTokenUpdates`). So the token is signed once and handed to every request
/// for `reuseFor` (50 minutes), and renewed early only when APNs rejects the very token in use:
/// many requests rejected at once with the same token make one new token, not one each.
public final class APNsProviderToken: Sendable {
    /// Within APNs' 20–60 minute window, with room for clock skew at either end.
    public static let defaultReuse: TimeInterval = 50 * 60

    public struct KeyError: Error, CustomStringConvertible {
        public let description: String
    }

    private struct Current {
        var token: String
        var issuedAt: Date
    }

    public let keyID: String
    public let teamID: String
    private let key: P256.Signing.PrivateKey
    private let reuseFor: TimeInterval
    private let now: @Sendable () -> Date
    private let current = Mutex<Current?>(nil)
    private let signed = Atomic<Int>(0)

    /// `pem` is the `.p8` file's text (a PKCS #8 P-256 private key).
    public init(
        pem: String, keyID: String, teamID: String, reuseFor: TimeInterval = defaultReuse,
        now: @escaping @Sendable () -> Date = { Date() }
    ) throws(KeyError) {
        do {
            key = try P256.Signing.PrivateKey(pemRepresentation: pem)
        } catch {
            throw KeyError(description: "is not a P-256 private key in PEM (the .p8 file from Apple)")
        }
        self.keyID = keyID
        self.teamID = teamID
        self.reuseFor = reuseFor
        self.now = now
    }

    /// How many tokens were signed so far: a test checks that requests share them.
    public var signatureCount: Int { signed.load(ordering: .relaxed) }

    /// The token to send now: the current one while it is younger than `reuseFor`.
    public func token() -> String {
        let now = self.now()
        return current.withLock { current in
            if let current, now.timeIntervalSince(current.issuedAt) < reuseFor, now >= current.issuedAt {
                return current.token
            }
            let fresh = Current(token: sign(issuedAt: now), issuedAt: now)
            current = fresh
            return fresh.token
        }
    }

    /// APNs rejected `rejected` (`ExpiredProviderToken`, `InvalidProviderToken`): the token to
    /// retry with. A new one only if `rejected` is still current, so concurrent rejections of
    /// one token renew it once.
    public func renew(rejected: String) -> String {
        let now = self.now()
        return current.withLock { current in
            if let current, current.token != rejected { return current.token }
            let fresh = Current(token: sign(issuedAt: now), issuedAt: now)
            current = fresh
            return fresh.token
        }
    }

    private func sign(issuedAt: Date) -> String {
        signed.add(1, ordering: .relaxed)
        // Signing with a valid key cannot fail: the key was checked when the sink was made.
        return JSONWebToken.make(
            header: [("alg", .string("ES256")), ("kid", .string(keyID))],
            claims: [("iss", .string(teamID)), ("iat", .int(Int64(issuedAt.timeIntervalSince1970)))]
        ) { input in
            // JWS wants ES256 as the raw 64-byte r‖s, not DER.
            Array((try? key.signature(for: input))?.rawRepresentation ?? Data())
        }
    }
}
