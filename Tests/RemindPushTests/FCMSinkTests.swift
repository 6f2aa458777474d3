import Foundation
import RemindCore
import RemindPush
import RemindSinks
import RemindTesting
import Synchronization
import Testing

/// The `fcm` sink against a local HTTP/2 TLS server speaking Google's OAuth token endpoint
/// and FCM HTTP v1 (docs/push.md "FCM").
@Suite(.ownThread)
struct FCMSinkTests {
    static let token = PushHarness.fcmToken(1)

    /// A reminder is a notification message with the episode as collapse key and tag, sent
    /// with an access token from a verified RS256 bearer grant.
    @Test func reminderIsANotificationMessageWithAGrantedAccessToken() async throws {
        let harness = try PushHarness(sinks: ["fcm"])
        try await harness.report("u-1", push: .set(PushAddress(service: .fcm, token: Self.token)))
        try await harness.server.serving {
            try await withClient(harness) { client in
                let sink = try harness.fcmSink(
                    client: client,
                    options: .init(
                        url: harness.server.url, settingsURL: "myapp://settings", timeoutSeconds: PushHarness.timeout))
                let event = PushHarness.reminder("u-1")
                #expect(try await sink.deliver(event) == .delivered)
                let grant = try #require(harness.server.grants.withLock { $0.first })
                #expect(grant.claims["iss"] == .string("remindd@\(PushHarness.project).iam.gserviceaccount.com"))
                #expect(grant.claims["scope"] == .string("https://www.googleapis.com/auth/firebase.messaging"))
                #expect(grant.claims["aud"] == .string(harness.server.tokenURI))
                guard case .int(let iat)? = grant.claims["iat"], case .int(let exp)? = grant.claims["exp"] else {
                    Issue.record("iat and exp missing: \(grant.claims)")
                    return
                }
                #expect(iat == Int64(PushHarness.start.timeIntervalSince1970))
                #expect(exp - iat <= 3600 && exp > iat)
                let request = try #require(harness.server.requests(to: "/v1/projects/").first)
                #expect(request.path == "/v1/projects/\(PushHarness.project)/messages:send")
                let episode = "u-1/\(Int(PushHarness.start.timeIntervalSince1970))"
                #expect(
                    String(decoding: request.body, as: UTF8.self)
                        == #"{"message":{"token":"\#(Self.token)","notification":{"title":"App is unable to record trips","body":"Please grant Always access for location."},"android":{"priority":"high","collapse_key":"\#(episode)","notification":{"tag":"\#(episode)"}},"apns":{"headers":{"apns-collapse-id":"\#(episode)"}},"data":{"remindd_type":"reminder","remindd_id":"\#(event.id)","remindd_reason":"locationNotAuthorizedAlways","remindd_url":"myapp://settings"}}}"#
                )
            }
        }
    }

    /// Withdraws and heartbeats are data-only messages; the reminder ids travel as a JSON string.
    @Test func withdrawAndHeartbeatAreDataMessages() async throws {
        let harness = try PushHarness(sinks: ["fcm"])
        try await harness.report("u-1", push: .set(PushAddress(service: .fcm, token: Self.token)))
        try await harness.server.serving {
            try await withClient(harness) { client in
                let sink = try harness.fcmSink(client: client)
                let withdraw = PushHarness.withdraw("u-1", reminders: 1)
                let heartbeat = PushHarness.heartbeat("u-1", at: PushHarness.start + .hours(6))
                #expect(try await sink.deliver(withdraw) == .delivered)
                #expect(try await sink.deliver(heartbeat) == .delivered)
                let bodies = harness.server.requests(to: "/v1/projects/").map {
                    String(decoding: $0.body, as: UTF8.self)
                }
                let start = Int(PushHarness.start.timeIntervalSince1970)
                #expect(
                    bodies[0]
                        == #"{"message":{"token":"\#(Self.token)","data":{"remindd_type":"withdraw","remindd_id":"\#(withdraw.id)","remindd_reminder_ids":"[\"u-1/\#(start)/1\"]"}}}"#
                )
                #expect(
                    bodies[1]
                        == #"{"message":{"token":"\#(Self.token)","data":{"remindd_type":"heartbeat","remindd_id":"\#(heartbeat.id)"}}}"#
                )
            }
        }
    }

    /// One grant serves many messages; it is renewed 60 s before it expires, and at once after
    /// a `401`, with the message retried.
    @Test func accessTokenIsCachedAndRenewedAfterA401() async throws {
        let harness = try PushHarness(sinks: ["fcm"])
        for n in 0..<20 {
            try await harness.report("u-\(n)", push: .set(PushAddress(service: .fcm, token: PushHarness.fcmToken(n))))
        }
        try await harness.server.serving {
            try await withClient(harness) { client in
                let sink = try harness.fcmSink(client: client)
                try await withThrowingTaskGroup(of: SinkOutcome.self) { group in
                    for n in 0..<20 { group.addTask { try await sink.deliver(PushHarness.reminder("u-\(n)")) } }
                    for try await outcome in group { #expect(outcome == .delivered) }
                }
                #expect(harness.server.grants.withLock { $0.count } == 1)
                // The server forgets every token it issued: the next message gets a 401 first.
                harness.server.accessTokens.withLock { $0.removeAll() }
                #expect(try await sink.deliver(PushHarness.reminder("u-0", sequence: 2)) == .delivered)
                #expect(harness.server.grants.withLock { $0.count } == 2)
                // 60 s before the hour is up, a new grant.
                harness.advance(3600 - 59)
                #expect(try await sink.deliver(PushHarness.reminder("u-0", sequence: 3)) == .delivered)
                #expect(harness.server.grants.withLock { $0.count } == 3)
            }
        }
    }

    /// `404 UNREGISTERED`, and `400 INVALID_ARGUMENT` about the token, are dead tokens; an
    /// INVALID_ARGUMENT about something else is a permanent failure that leaves the user reachable.
    @Test(arguments: [
        (PushServer.Reply.fcm(404, "NOT_FOUND", errorCode: "UNREGISTERED"), "UNREGISTERED"),
        (
            PushServer.Reply.fcm(400, "INVALID_ARGUMENT", errorCode: "INVALID_ARGUMENT", field: "message.token"),
            "INVALID_ARGUMENT"
        ),
    ])
    func deadTokenMakesTheUserUnreachable(reply: PushServer.Reply, reason: String) async throws {
        let harness = try PushHarness(sinks: ["fcm"])
        try await harness.report("u-1", push: .set(PushAddress(service: .fcm, token: Self.token)))
        harness.server.respond { _ in reply }
        try await harness.server.serving {
            try await withClient(harness) { client in
                let sink = try harness.fcmSink(client: client)
                let error = try #require(await deliveryError(sink, PushHarness.reminder("u-1")))
                #expect(!error.retryable && error.message == reason)
                #expect(await harness.store.pushAddress(for: Fixtures.userID("u-1"))?.unreachable?.reason == reason)
                #expect(
                    try await sink.deliver(PushHarness.reminder("u-1", sequence: 2)) == .skipped(reason: "unreachable"))
                try await harness.report("u-1", push: .set(PushAddress(service: .fcm, token: PushHarness.fcmToken(2))))
                harness.server.respond { _ in .init(200) }
                #expect(try await sink.deliver(PushHarness.reminder("u-1", sequence: 3)) == .delivered)
            }
        }
    }

    @Test(arguments: [
        (PushServer.Reply.fcm(400, "INVALID_ARGUMENT", errorCode: "INVALID_ARGUMENT"), false),
        (PushServer.Reply.fcm(403, "PERMISSION_DENIED", errorCode: "SENDER_ID_MISMATCH"), false),
        (PushServer.Reply.fcm(429, "RESOURCE_EXHAUSTED", errorCode: "QUOTA_EXCEEDED"), true),
        (PushServer.Reply.fcm(500, "INTERNAL", errorCode: "INTERNAL"), true),
        (PushServer.Reply.fcm(503, "UNAVAILABLE", errorCode: "UNAVAILABLE"), true),
    ])
    func otherAnswersAreRetriedOrPermanent(reply: PushServer.Reply, retryable: Bool) async throws {
        let harness = try PushHarness(sinks: ["fcm"])
        try await harness.report("u-1", push: .set(PushAddress(service: .fcm, token: Self.token)))
        var answer = reply
        answer.headers["retry-after"] = "3"
        harness.server.respond { [answer] _ in answer }
        try await harness.server.serving {
            try await withClient(harness) { client in
                let sink = try harness.fcmSink(client: client)
                let error = try #require(await deliveryError(sink, PushHarness.reminder("u-1")))
                #expect(error.retryable == retryable)
                #expect(error.retryAfter == (retryable ? 3 : nil))
                #expect(await harness.store.pushAddress(for: Fixtures.userID("u-1"))?.isReachable == true)
            }
        }
    }

    /// A grant the token endpoint refuses (a revoked key) is a failed attempt, retried later.
    @Test func refusedGrantIsARetryableFailure() async throws {
        let harness = try PushHarness(sinks: ["fcm"])
        try await harness.report("u-1", push: .set(PushAddress(service: .fcm, token: Self.token)))
        let stranger = try PushHarness(freshGoogleKey: true)
        try await harness.server.serving {
            try await withClient(harness) { client in
                // The service account's key is not the one the server knows.
                let json = harness.serviceAccountJSON.replacingOccurrences(
                    of: harness.googleKey.pkcs8PEMRepresentation.replacingOccurrences(of: "\n", with: "\\n"),
                    with: stranger.googleKey.pkcs8PEMRepresentation.replacingOccurrences(of: "\n", with: "\\n"))
                let sink = PushSink.fcm(
                    account: try GoogleServiceAccount(json: Array(json.utf8)),
                    options: .init(url: harness.server.url, timeoutSeconds: PushHarness.timeout),
                    directory: harness.store, client: client, now: harness.now)
                let error = try #require(await deliveryError(sink, PushHarness.reminder("u-1")))
                #expect(error.message.contains("invalid_grant"))
                #expect(harness.server.requests(to: "/v1/projects/").isEmpty)
                #expect(!error.message.contains("BEGIN"))
            }
        }
    }

    /// The service-account file must hold the members the grant needs.
    @Test(arguments: ["private_key", "client_email", "token_uri", "project_id"])
    func serviceAccountWithoutAMemberIsRefusedNamingIt(member: String) throws {
        let harness = try PushHarness(sinks: ["fcm"])
        guard case .object(var object) = try JSONParser.parse(Array(harness.serviceAccountJSON.utf8)) else {
            Issue.record("fixture is not an object")
            return
        }
        object = JSONObject(object.members.filter { $0.key != member })
        var writer = JSONWriter()
        writer.value(.object(object))
        do {
            _ = try GoogleServiceAccount(json: writer.bytes)
            Issue.record("accepted a file without \(member)")
        } catch {
            #expect(error.member == member)
        }
    }

    @Test func privateKeyThatIsNotRSAIsRefused() throws {
        let harness = try PushHarness(sinks: ["fcm"])
        let json = harness.serviceAccountJSON.replacingOccurrences(
            of: harness.googleKey.pkcs8PEMRepresentation.replacingOccurrences(of: "\n", with: "\\n"),
            with: harness.apnsKey.pemRepresentation.replacingOccurrences(of: "\n", with: "\\n"))
        #expect(throws: GoogleServiceAccount.FileError.self) { try GoogleServiceAccount(json: Array(json.utf8)) }
    }
}
