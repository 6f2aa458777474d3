import AsyncHTTPClient
import Foundation
import NIOCore
import RemindCore
import RemindSinks

/// APNs' HTTP/2 provider API with token authentication (docs/push.md "APNs").
///
/// One `HTTPClient` per sink holds one multiplexed HTTP/2 connection per APNs host; the
/// dispatcher's `maxConcurrency` bounds the streams in flight on it.
struct APNsTransport: PushTransport {
    static let productionURL = "https://api.push.apple.com"
    static let developmentURL = "https://api.sandbox.push.apple.com"
    /// Reasons that mean the token will never work again for this topic.
    static let deadTokenReasons: Set<String> = ["Unregistered", "BadDeviceToken", "DeviceTokenNotForTopic"]
    static let providerTokenReasons: Set<String> = ["ExpiredProviderToken", "InvalidProviderToken"]

    var service: PushService { .apns }
    let providerToken: APNsProviderToken
    let topic: String
    /// Serves both environments when set (tests, proxies).
    let url: String?
    let settingsURL: String
    let expirationSeconds: Int
    let timeout: TimeAmount
    let client: HTTPClient
    let now: @Sendable () -> Date

    func send(_ event: SinkEvent, eventID: String, to address: PushAddress) async throws(SinkError) -> PushAnswer {
        let notification = APNsNotification(
            event: event, eventID: eventID, topic: topic, settingsURL: settingsURL,
            expiration: now().addingTimeInterval(TimeInterval(expirationSeconds)))
        let base = url ?? (address.environment == .development ? Self.developmentURL : Self.productionURL)
        var bearer = providerToken.token()
        var renewed = false
        while true {
            var request = HTTPClientRequest(url: "\(base)/3/device/\(address.token)")
            request.method = .POST
            request.headers.add(name: "authorization", value: "bearer \(bearer)")
            for header in notification.headers { request.headers.add(name: header.name, value: header.value) }
            request.headers.add(name: "content-type", value: "application/json")
            request.body = .bytes(ByteBuffer(bytes: notification.payload))
            let response: HTTPClientResponse
            do {
                response = try await client.execute(request, timeout: timeout)
            } catch {
                // AsyncHTTPClient's errors name the failure, not the request's path (the token).
                throw SinkError("APNs: \(error)")
            }
            let status = Int(response.status.code)
            let body = (try? await response.body.collect(upTo: 16 * 1024)).map { Array(buffer: $0) } ?? []
            if status == 200 { return .delivered }
            let reason = Self.reason(body) ?? "HTTP \(status)"
            if status == 410 || (status == 400 && Self.deadTokenReasons.contains(reason)) {
                return .deadToken(reason: reason)
            }
            if status == 403, Self.providerTokenReasons.contains(reason), !renewed {
                bearer = providerToken.renew(rejected: bearer)
                renewed = true
                continue
            }
            let retryable =
                status == 429 || status >= 500 || (status == 403 && Self.providerTokenReasons.contains(reason))
            throw SinkError(
                "APNs: HTTP \(status) \(reason)", retryable: retryable,
                retryAfter: retryable ? response.headers.first(name: "retry-after").flatMap(RetryAfter.seconds) : nil)
        }
    }

    /// The `reason` of APNs' error body `{"reason":"BadDeviceToken"}`.
    static func reason(_ body: [UInt8]) -> String? {
        guard case .object(let object)? = try? JSONParser.parse(body), case .string(let reason)? = object["reason"],
            !reason.isEmpty, reason.count <= 64
        else { return nil }
        return reason
    }
}
