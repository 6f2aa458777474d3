import AsyncHTTPClient
import Foundation
import NIOCore
import RemindCore
import RemindSinks

/// OAuth 2.0 access tokens for FCM, from the service account by the JWT bearer grant
/// (RFC 7523): the signed assertion is posted to `token_uri`, the answer's `access_token` is
/// used until 60 s before its `expires_in`, and renewed early after FCM answers `401`.
///
/// Concurrent deliveries that find no valid token wait for one grant request rather than
/// each making their own.
actor GoogleAccessToken {
    /// Renew this long before the token expires, so none expires on the way.
    static let margin: TimeInterval = 60

    private struct Cached {
        var token: String
        var expiresAt: Date
    }

    private let account: GoogleServiceAccount
    private let client: HTTPClient
    private let timeout: TimeAmount
    private let now: @Sendable () -> Date
    private var cached: Cached?
    private var pending: Task<Cached, any Error>?
    private(set) var grants = 0

    init(account: GoogleServiceAccount, client: HTTPClient, timeout: TimeAmount, now: @escaping @Sendable () -> Date) {
        self.account = account
        self.client = client
        self.timeout = timeout
        self.now = now
    }

    /// A token valid for at least `margin` more seconds.
    func token() async throws(SinkError) -> String {
        if let cached, cached.expiresAt.timeIntervalSince(now()) > Self.margin { return cached.token }
        let task: Task<Cached, any Error>
        if let pending {
            task = pending
        } else {
            grants += 1
            task = Task { try await self.grant() }
            pending = task
        }
        do {
            let fresh = try await task.value
            if pending == task { pending = nil }
            cached = fresh
            return fresh.token
        } catch {
            if pending == task { pending = nil }
            throw (error as? SinkError) ?? SinkError("OAuth token from \(account.tokenURI): \(error)")
        }
    }

    /// FCM refused `token` (401): forget it, unless a newer one replaced it already.
    func invalidate(_ token: String) {
        if cached?.token == token { cached = nil }
    }

    private func grant() async throws -> Cached {
        let issuedAt = now()
        var request = HTTPClientRequest(url: account.tokenURI)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        request.headers.add(name: "User-Agent", value: "remindd")
        // The assertion is base64url and dots only: nothing in it needs form encoding.
        let form =
            "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion="
            + account.assertion(now: issuedAt)
        request.body = .bytes(ByteBuffer(string: form))
        let response: HTTPClientResponse
        do {
            response = try await client.execute(request, timeout: timeout)
        } catch {
            throw SinkError("OAuth token from \(account.tokenURI): \(error)")
        }
        let body = (try? await response.body.collect(upTo: 64 * 1024)).map { Array(buffer: $0) } ?? []
        let status = Int(response.status.code)
        guard status == 200 else {
            // The answer names the problem (`invalid_grant`: a revoked key, a skewed clock); it
            // holds no secret.
            let detail = String(decoding: body.prefix(300), as: UTF8.self)
            throw SinkError(
                "OAuth token from \(account.tokenURI): HTTP \(status) \(detail)",
                retryable: status == 408 || status == 429 || status >= 500 || status == 401 || status == 403,
                retryAfter: response.headers.first(name: "Retry-After").flatMap(RetryAfter.seconds))
        }
        guard case .object(let object)? = try? JSONParser.parse(body),
            case .string(let token)? = object["access_token"], !token.isEmpty
        else {
            throw SinkError("OAuth token from \(account.tokenURI): the answer has no access_token")
        }
        var lifetime: TimeInterval = 3600
        switch object["expires_in"] {
        case .int(let seconds)?: lifetime = TimeInterval(seconds)
        case .double(let seconds)?: lifetime = seconds
        default: break
        }
        return Cached(token: token, expiresAt: issuedAt.addingTimeInterval(lifetime))
    }
}
