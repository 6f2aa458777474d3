import Crypto
import RemindConfig
import Synchronization

/// The TCP listener's tokens as the request path uses them: each token's SHA-256 digest with
/// its holder's name and scope. Replaced whole at every reload, so a request sees either the
/// old tokens or the new ones, never a mix.
///
/// Only digests are kept: the table never holds a token it could print.
public final class TokenTable: Sendable {
    public struct Holder: Sendable, Equatable {
        public var name: String
        public var scope: AccessScope
    }

    private struct Entry {
        var holder: Holder
        var digest: [UInt8]
    }

    private let entries = Mutex<[Entry]>([])

    public init(_ tokens: AccessTokens = AccessTokens()) {
        replace(with: tokens)
    }

    public func replace(with tokens: AccessTokens) {
        let fresh = tokens.entries.map {
            Entry(holder: Holder(name: $0.name, scope: $0.scope), digest: Array(SHA256.hash(data: $0.token)))
        }
        entries.withLock { $0 = fresh }
    }

    public var isEmpty: Bool { entries.withLock { $0.isEmpty } }

    /// The holder of `token`. Every entry is compared, every byte of each, whatever matched
    /// first: the time taken tells neither how much of a guessed token was right, nor which
    /// entry it resembled, nor how long any token is.
    public func holder(of token: some Sequence<UInt8>) -> Holder? {
        let digest = Array(SHA256.hash(data: Array(token)))
        return entries.withLock { entries in
            var found: Holder?
            for entry in entries where Self.constantTimeEqual(entry.digest, digest) {
                found = entry.holder
            }
            return found
        }
    }

    /// The holder named by an `Authorization: Bearer <token>` header.
    public func holder(authorization header: String?) -> Holder? {
        guard let header, header.hasPrefix("Bearer ") else { return nil }
        return holder(of: header.utf8.dropFirst(7))
    }

    /// Compares two digests of equal length with no early exit.
    static func constantTimeEqual(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        guard lhs.count == rhs.count else { return false }
        var difference: UInt8 = 0
        for index in 0..<lhs.count { difference |= lhs[index] ^ rhs[index] }
        return difference == 0
    }
}
