import AsyncHTTPClient
import Foundation
import NIOCore
import RemindCore
import RemindSinks

/// Firebase Cloud Messaging's HTTP v1 API (docs/push.md), spoken over HTTP/2 like APNs.
struct FCMTransport: PushTransport {
    static let defaultURL = "https://fcm.googleapis.com"

    var service: PushService { .fcm }
    let account: GoogleServiceAccount
    let accessToken: GoogleAccessToken
    let url: String?
    let settingsURL: String?
    let timeout: TimeAmount
    let client: HTTPClient

    var endpoint: String { "\(url ?? Self.defaultURL)/v1/projects/\(account.projectID)/messages:send" }

    func send(_ event: SinkEvent, eventID: String, to address: PushAddress) async throws(SinkError) -> PushAnswer {
        let body = FCMMessage.body(event: event, eventID: eventID, token: address.token, settingsURL: settingsURL)
        var renewed = false
        while true {
            let bearer = try await accessToken.token()
            var request = HTTPClientRequest(url: endpoint)
            request.method = .POST
            request.headers.add(name: "authorization", value: "Bearer \(bearer)")
            request.headers.add(name: "content-type", value: "application/json; charset=UTF-8")
            request.body = .bytes(ByteBuffer(bytes: body))
            let response: HTTPClientResponse
            do {
                response = try await client.execute(request, timeout: timeout)
            } catch {
                throw SinkError("FCM: \(error)")
            }
            let status = Int(response.status.code)
            let answer = (try? await response.body.collect(upTo: 64 * 1024)).map { Array(buffer: $0) } ?? []
            if status == 200 { return .delivered }
            if status == 401, !renewed {
                await accessToken.invalidate(bearer)
                renewed = true
                continue
            }
            let error = FCMError(answer)
            if let reason = error.deadTokenReason(status: status) { return .deadToken(reason: reason) }
            let retryable = status == 429 || status >= 500 || status == 401
            throw SinkError(
                "FCM: HTTP \(status) \(error.code ?? "")".trimmingCharacters(in: .whitespaces), retryable: retryable,
                retryAfter: retryable ? response.headers.first(name: "retry-after").flatMap(RetryAfter.seconds) : nil)
        }
    }
}

/// FCM's error body: `{"error":{"code","message","status","details":[{"@type":"…FcmError",
/// "errorCode":"UNREGISTERED"},{"@type":"…BadRequest","fieldViolations":[{"field":"message.token"}]}]}}`.
struct FCMError {
    /// The FCM error code (`UNREGISTERED`, `INVALID_ARGUMENT`, …), else the RPC status.
    var code: String?
    var message: String = ""
    var namesToken = false

    init(_ body: [UInt8]) {
        guard case .object(let root)? = try? JSONParser.parse(body), case .object(let error)? = root["error"] else {
            return
        }
        if case .string(let status)? = error["status"] { code = status }
        if case .string(let text)? = error["message"] { message = text }
        guard case .array(let details)? = error["details"] else { return }
        for case .object(let detail) in details {
            if case .string(let errorCode)? = detail["errorCode"] { code = errorCode }
            if case .array(let violations)? = detail["fieldViolations"] {
                for case .object(let violation) in violations {
                    if case .string("message.token")? = violation["field"] { namesToken = true }
                }
            }
        }
    }

    /// The reason to record when the answer says the token is dead: `404 UNREGISTERED`, or
    /// `400 INVALID_ARGUMENT` about the registration token (not about the message).
    func deadTokenReason(status: Int) -> String? {
        switch (status, code) {
        case (404, "UNREGISTERED"): return "UNREGISTERED"
        case (400, "INVALID_ARGUMENT")
        where namesToken || message.localizedCaseInsensitiveContains("registration token"):
            return "INVALID_ARGUMENT"
        default: return nil
        }
    }
}
