import AsyncHTTPClient
import Crypto
import Foundation
import RemindCore
import RemindPush
import RemindSinks
import RemindTesting
import Synchronization
import Testing
import _CryptoExtras

/// The `apns` sink against a local HTTP/2 TLS server speaking the provider API (docs/push.md "APNs").
@Suite(.ownThread)
struct APNsSinkTests {
    static let token = PushHarness.apnsToken(1)

    /// A reminder is an alert with every header APNs wants, a JWT that verifies with the key's
    /// public half, and the payload of docs/push.md, byte for byte.
    @Test func reminderIsAnAlertWithTheDocumentedHeadersAndPayload() async throws {
        let harness = try PushHarness()
        try await harness.report("u-1", push: .set(PushAddress(service: .apns, token: Self.token.uppercased())))
        try await harness.withAPNsSink { (sink: PushSink) async throws in
            let event = PushHarness.reminder("u-1")
            #expect(try await sink.deliver(event) == .delivered)
            let request = try #require(harness.server.requests(to: "/3/device/").first)
            #expect(request.path == "/3/device/\(Self.token)")
            #expect(request.headers["apns-push-type"] == "alert")
            #expect(request.headers["apns-priority"] == "10")
            #expect(request.headers["apns-topic"] == PushHarness.topic)
            #expect(request.headers["apns-collapse-id"] == "u-1/\(Int(PushHarness.start.timeIntervalSince1970))")
            #expect(
                request.headers["apns-expiration"] == String(Int(PushHarness.start.timeIntervalSince1970) + 86_400))
            let apnsID = try #require(request.headers["apns-id"])
            #expect(UUID(uuidString: apnsID) != nil)
            let jwt = try #require(request.headers["authorization"]?.dropFirst("bearer ".count))
            let verified = try #require(JWTVerifier.verifyES256(String(jwt), key: harness.apnsKey.publicKey))
            #expect(verified.header["kid"] == .string(PushHarness.keyID))
            #expect(verified.claims["iss"] == .string(PushHarness.teamID))
            #expect(verified.claims["iat"] == .int(Int64(PushHarness.start.timeIntervalSince1970)))
            let payload = String(decoding: request.body, as: UTF8.self)
            #expect(
                payload
                    == #"{"aps":{"alert":{"title":"App is unable to record trips","body":"Please grant Always access for location."},"sound":"default","thread-id":"remindd"},"remindd":{"type":"reminder","id":"\#(event.id)","reason":"locationNotAuthorizedAlways","url":"app-settings:"}}"#
            )
            // A retry of the same event carries the same apns-id.
            #expect(try await sink.deliver(event) == .delivered)
            #expect(harness.server.requests(to: "/3/device/").last?.headers["apns-id"] == apnsID)
        }
    }

    /// The reminders of one recurring episode share a collapse id (the newest replaces the one
    /// on screen), each with its own apns-id; another episode collapses separately.
    @Test func recurringRemindersShareOneCollapseID() async throws {
        let harness = try PushHarness()
        try await harness.report("u-1", push: .set(PushAddress(service: .apns, token: Self.token)))
        try await harness.withAPNsSink { (sink: PushSink) async throws in
            for sequence in 1...3 {
                #expect(try await sink.deliver(PushHarness.reminder("u-1", sequence: sequence)) == .delivered)
            }
            let later = PushHarness.start + .days(30)
            #expect(try await sink.deliver(PushHarness.reminder("u-1", episodeStart: later)) == .delivered)
            let requests = harness.server.requests(to: "/3/device/")
            let collapse = requests.map { $0.headers["apns-collapse-id"] ?? "" }
            #expect(Set(collapse.prefix(3)).count == 1)
            #expect(collapse[3] != collapse[0])
            #expect(Set(requests.map { $0.headers["apns-id"] ?? "" }).count == 4)
        }
    }

    /// A user ID long enough to push the episode key past 64 bytes gets its SHA-256 instead.
    @Test func longEpisodeKeysAreHashedTo64Bytes() async throws {
        let user = String(repeating: "u", count: 80)
        let harness = try PushHarness()
        try await harness.report(user, push: .set(PushAddress(service: .apns, token: Self.token)))
        try await harness.withAPNsSink { (sink: PushSink) async throws in
            #expect(try await sink.deliver(PushHarness.reminder(user)) == .delivered)
            let key = "\(user)/\(Int(PushHarness.start.timeIntervalSince1970))"
            let expected = SHA256.hash(data: Array(key.utf8)).map { String(format: "%02x", $0) }.joined()
            #expect(harness.server.requests(to: "/3/device/").first?.headers["apns-collapse-id"] == expected)
        }
    }

    /// Withdraws and heartbeats are background pushes (content-available, priority 5), so the
    /// app can remove the shown reminders, or re-check and report.
    @Test func withdrawAndHeartbeatAreBackgroundPushes() async throws {
        let harness = try PushHarness()
        try await harness.report("u-1", push: .set(PushAddress(service: .apns, token: Self.token)))
        try await harness.withAPNsSink { (sink: PushSink) async throws in
            let withdraw = PushHarness.withdraw("u-1")
            let heartbeat = PushHarness.heartbeat("u-1", at: PushHarness.start + .hours(6))
            #expect(try await sink.deliver(withdraw) == .delivered)
            #expect(try await sink.deliver(heartbeat) == .delivered)
            let requests = harness.server.requests(to: "/3/device/")
            for request in requests {
                #expect(request.headers["apns-push-type"] == "background")
                #expect(request.headers["apns-priority"] == "5")
                #expect(request.headers["apns-collapse-id"] == nil)
            }
            let start = Int(PushHarness.start.timeIntervalSince1970)
            #expect(
                String(decoding: requests[0].body, as: UTF8.self)
                    == #"{"aps":{"content-available":1},"remindd":{"type":"withdraw","id":"\#(withdraw.id)","reminderIDs":["u-1/\#(start)/1","u-1/\#(start)/2"]}}"#
            )
            #expect(
                String(decoding: requests[1].body, as: UTF8.self)
                    == #"{"aps":{"content-available":1},"remindd":{"type":"heartbeat","id":"\#(heartbeat.id)"}}"#)
        }
    }

    /// Per user at most `backgroundPushesPerHour` background pushes in any hour: heartbeats
    /// beyond it are skipped (and counted), withdraws always go but use up the budget; an hour
    /// later the budget is back. Other users have their own.
    @Test func heartbeatsOverTheBackgroundBudgetAreSkipped() async throws {
        let harness = try PushHarness()
        for (n, user) in ["u-1", "u-2"].enumerated() {
            try await harness.report(user, push: .set(PushAddress(service: .apns, token: PushHarness.apnsToken(n))))
        }
        try await harness.server.serving {
            try await withClient(harness) { client in
                let options = PushSink.APNsOptions(
                    topic: PushHarness.topic, url: harness.server.url, timeoutSeconds: PushHarness.timeout,
                    backgroundPushesPerHour: 2)
                let sink = try harness.apnsSink(client: client, options: options)
                func heartbeat(_ user: String, _ minute: Int) -> OutboxEvent {
                    PushHarness.heartbeat(user, at: PushHarness.start + .minutes(minute))
                }
                #expect(try await sink.deliver(heartbeat("u-1", 0)) == .delivered)
                #expect(try await sink.deliver(PushHarness.withdraw("u-1")) == .delivered)
                #expect(try await sink.deliver(heartbeat("u-1", 1)) == .skipped(reason: "budget"))
                #expect(try await sink.deliver(PushHarness.withdraw("u-1")) == .delivered)
                #expect(try await sink.deliver(heartbeat("u-2", 1)) == .delivered)
                // Reminders are alerts: no budget.
                #expect(try await sink.deliver(PushHarness.reminder("u-1")) == .delivered)
                harness.advance(3601)
                #expect(try await sink.deliver(heartbeat("u-1", 61)) == .delivered)
                #expect(sink.metrics.snapshot[.skippedBudget] == 1)
                #expect(sink.metrics.snapshot[.delivered] == 6)
                #expect(harness.server.requests(to: "/3/device/").count == 6)
            }
        }
    }

    /// A dead-token answer makes the user unreachable with the reason and time, dead-letters
    /// the event (not retryable), and later events are skipped without a request; the same
    /// token reported again keeps the user unreachable, a different one makes them reachable.
    @Test(arguments: [(410, "Unregistered"), (400, "BadDeviceToken"), (400, "DeviceTokenNotForTopic")])
    func deadTokenMakesTheUserUnreachableUntilANewToken(status: Int, reason: String) async throws {
        let harness = try PushHarness()
        try await harness.report("u-1", push: .set(PushAddress(service: .apns, token: Self.token)))
        harness.server.respond { request in
            request.path.hasSuffix(Self.token) ? .apns(status, reason) : .init(200)
        }
        try await harness.withAPNsSink { (sink: PushSink) async throws in
            harness.advance(60)
            let error = try #require(await deliveryError(sink, PushHarness.reminder("u-1")))
            #expect(!error.retryable)
            #expect(error.message == reason)
            let address = try #require(await harness.store.pushAddress(for: Fixtures.userID("u-1")))
            #expect(address.unreachable == .init(reason: reason, since: PushHarness.start + .seconds(60)))
            #expect(
                try await sink.deliver(PushHarness.reminder("u-1", sequence: 2)) == .skipped(reason: "unreachable"))
            try await harness.report("u-1", push: .set(PushAddress(service: .apns, token: Self.token.uppercased())))
            #expect(await harness.store.pushAddress(for: Fixtures.userID("u-1"))?.isReachable == false)
            #expect(
                try await sink.deliver(PushHarness.reminder("u-1", sequence: 3)) == .skipped(reason: "unreachable"))
            #expect(harness.server.requests(to: "/3/device/").count == 1)
            let fresh = PushHarness.apnsToken(2)
            try await harness.report("u-1", push: .set(PushAddress(service: .apns, token: fresh)))
            #expect(try await sink.deliver(PushHarness.reminder("u-1", sequence: 4)) == .delivered)
            #expect(harness.server.requests(to: "/3/device/").last?.path == "/3/device/\(fresh)")
            #expect(sink.metrics.snapshot[.unreachable] == 3)
            // The dead token appears in no error message.
            #expect(!error.message.contains(Self.token))
        }
    }

    /// With a fallback sink, a dead token's reminder whose episode is no longer pending (the
    /// user fixed the setting meanwhile) goes nowhere, and counts as any unreachable skip.
    @Test func aDeadTokensReminderNoLongerPendingCountsAsUnreachable() async throws {
        let channels = ChannelConfiguration(pushSinks: ["apns": .apns], fallbackSinks: ["mail"])
        let harness = try PushHarness(
            sinks: ["apns", "mail"], policy: ReminderPolicy(configuration: PolicyConfiguration(channels: channels)))
        try await harness.report("u-1", push: .set(PushAddress(service: .apns, token: Self.token)))
        harness.server.respond { _ in .apns(410, "Unregistered") }
        try await harness.withAPNsSink { (sink: PushSink) async throws in
            // The store never sent this reminder: nothing to hand to the fallback.
            #expect(try await sink.deliver(PushHarness.reminder("u-1")) == .skipped(reason: "unreachable"))
            #expect(sink.metrics.snapshot[.unreachable] == 1)
            #expect(sink.metrics.snapshot[.rerouted] == nil || sink.metrics.snapshot[.rerouted] == 0)
        }
    }

    /// 429, 500 and 503 are retried, honouring `Retry-After`; other 4xx are permanent.
    @Test(arguments: [
        (429, "TooManyRequests", true), (500, "InternalServerError", true), (503, "ServiceUnavailable", true),
        (400, "BadExpirationDate", false), (413, "PayloadTooLarge", false), (404, "BadPath", false),
    ])
    func answersAreRetriedOrPermanentAsDocumented(status: Int, reason: String, retryable: Bool) async throws {
        let harness = try PushHarness()
        try await harness.report("u-1", push: .set(PushAddress(service: .apns, token: Self.token)))
        harness.server.respond { _ in .apns(status, reason, headers: ["retry-after": "7"]) }
        try await harness.withAPNsSink { (sink: PushSink) async throws in
            let error = try #require(await deliveryError(sink, PushHarness.reminder("u-1")))
            #expect(error.retryable == retryable)
            #expect(error.retryAfter == (retryable ? 7 : nil))
            #expect(error.message.contains(reason))
            #expect(await harness.store.pushAddress(for: Fixtures.userID("u-1"))?.isReachable == true)
            #expect(sink.metrics.snapshot[retryable ? .retried : .failed] == 1)
        }
    }

    /// `429` with `Retry-After: 1` through the dispatcher: the event waits at least that long
    /// and then goes again with the same apns-id.
    @Test func tooManyRequestsIsRetriedAfterRetryAfter() async throws {
        let harness = try PushHarness()
        try await harness.report("u-1", push: .set(PushAddress(service: .apns, token: Self.token)))
        let answered = Mutex(0)
        harness.server.respond { _ in
            answered.withLock {
                $0 += 1; return $0
            } == 1 ? .apns(429, "TooManyRequests", headers: ["retry-after": "1"]) : .init(200)
        }
        try await harness.withAPNsSink { (sink: PushSink) async throws in
            let outbox = MemoryOutbox([PushHarness.reminder("u-1")])
            let dispatcher = SinkDispatcher(
                sink: sink,
                retry: RetryPolicy(initialBackoffSeconds: 0.01, maxBackoffSeconds: 0.01, maxAttempts: 5),
                source: outbox, clock: ContinuousClock(), logger: .init(label: "test"), deadLetter: { _, _, _ in })
            let started = ContinuousClock.now
            let task = Task { await dispatcher.run() }
            try await outbox.waitUntilCompleted(1)
            task.cancel()
            await task.value
            #expect(ContinuousClock.now - started >= .seconds(1))
            let requests = harness.server.requests(to: "/3/device/")
            #expect(requests.count == 2)
            #expect(requests[0].headers["apns-id"] == requests[1].headers["apns-id"])
            #expect(sink.metrics.snapshot[.retried] == 1 && sink.metrics.snapshot[.delivered] == 1)
        }
    }

    /// `403 ExpiredProviderToken`: one new JWT and one immediate retry, delivered.
    @Test func expiredProviderTokenIsRenewedOnceAndRetried() async throws {
        let harness = try PushHarness()
        try await harness.report("u-1", push: .set(PushAddress(service: .apns, token: Self.token)))
        let first = Mutex<String?>(nil)
        harness.server.respond { request in
            let bearer = request.headers["authorization"]
            let isFirst = first.withLock { stored -> Bool in
                if stored == nil { stored = bearer }
                return stored == bearer
            }
            return isFirst ? .apns(403, "ExpiredProviderToken") : .init(200)
        }
        try await harness.server.serving {
            try await withClient(harness) { client in
                let token = try APNsProviderToken(
                    pem: harness.apnsKey.pemRepresentation, keyID: PushHarness.keyID, teamID: PushHarness.teamID,
                    now: harness.now)
                let sink = try harness.apnsSink(client: client, token: token)
                #expect(try await sink.deliver(PushHarness.reminder("u-1")) == .delivered)
                #expect(token.signatureCount == 2)
                #expect(harness.server.providerTokens.withLock { $0.count } == 2)
                let requests = harness.server.requests(to: "/3/device/")
                #expect(requests.count == 2)
                #expect(requests[0].headers["apns-id"] == requests[1].headers["apns-id"])
                // The new token serves the next pushes.
                #expect(try await sink.deliver(PushHarness.reminder("u-1", sequence: 2)) == .delivered)
                #expect(token.signatureCount == 2)
            }
        }
    }

    /// One provider token serves 100 pushes (APNs refuses refreshes more often than every 20
    /// minutes); after 50 minutes a new one is signed.
    @Test func providerTokenIsSignedOnceFor100Pushes() async throws {
        let harness = try PushHarness()
        for n in 0..<100 {
            try await harness.report("u-\(n)", push: .set(PushAddress(service: .apns, token: PushHarness.apnsToken(n))))
        }
        try await harness.server.serving {
            try await withClient(harness) { client in
                let token = try APNsProviderToken(
                    pem: harness.apnsKey.pemRepresentation, keyID: PushHarness.keyID, teamID: PushHarness.teamID,
                    now: harness.now)
                let sink = try harness.apnsSink(client: client, token: token)
                try await withThrowingTaskGroup(of: SinkOutcome.self) { group in
                    for n in 0..<100 { group.addTask { try await sink.deliver(PushHarness.reminder("u-\(n)")) } }
                    for try await outcome in group { #expect(outcome == .delivered) }
                }
                #expect(token.signatureCount == 1)
                #expect(harness.server.providerTokens.withLock { $0.count } == 1)
                harness.advance(20 * 60)
                #expect(try await sink.deliver(PushHarness.reminder("u-0", sequence: 2)) == .delivered)
                #expect(token.signatureCount == 1)
                harness.advance(31 * 60)
                #expect(try await sink.deliver(PushHarness.reminder("u-0", sequence: 3)) == .delivered)
                #expect(token.signatureCount == 2)
            }
        }
    }

    /// Users without an APNs address are skipped and counted, not failed or dead-lettered.
    @Test func usersWithoutATokenAreSkippedAndCounted() async throws {
        let harness = try PushHarness()
        try await harness.report("none", push: .unchanged)
        try await harness.report("android", push: .set(PushAddress(service: .fcm, token: PushHarness.fcmToken(1))))
        try await harness.withAPNsSink { (sink: PushSink) async throws in
            #expect(try await sink.deliver(PushHarness.reminder("none")) == .skipped(reason: "no_token"))
            #expect(try await sink.deliver(PushHarness.reminder("android")) == .skipped(reason: "no_token"))
            #expect(try await sink.deliver(PushHarness.reminder("unknown-user")) == .skipped(reason: "no_token"))
            #expect(sink.metrics.snapshot[.skippedNoToken] == 3)
            #expect(harness.server.requests.isEmpty)
        }
    }

    /// The key must be a P-256 key in PEM: anything else is refused when the sink is made.
    @Test(arguments: ["", "not a key", "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n"])
    func keysThatAreNotP256AreRefused(pem: String) {
        #expect(throws: APNsProviderToken.KeyError.self) {
            try APNsProviderToken(pem: pem, keyID: PushHarness.keyID, teamID: PushHarness.teamID)
        }
    }

    @Test func rsaKeyIsNotAnAPNsKey() throws {
        let rsa = try _RSAKey.make()
        #expect(throws: APNsProviderToken.KeyError.self) {
            try APNsProviderToken(pem: rsa, keyID: PushHarness.keyID, teamID: PushHarness.teamID)
        }
    }
}

enum _RSAKey {
    static func make() throws -> String { try _RSA.Signing.PrivateKey(keySize: .bits2048).pkcs8PEMRepresentation }
}
