import AsyncHTTPClient
import Crypto
import Foundation
import RemindCore
import RemindPush
import RemindSinks
import RemindStore
import RemindTesting
import Synchronization
import Testing
import _CryptoExtras

/// Everything a push sink test needs, all real: a test CA, an APNs key and a Google service
/// account key made here, the local HTTP/2 `PushServer` that verifies with their public keys,
/// and a `MemoryStateStore` as the directory of users' devices. The wall clock is injected.
final class PushHarness: Sendable {
    static let start = Fixtures.date("2026-11-15T10:00:00Z")
    static let keyID = "ABC123DEFG"
    static let teamID = "DEF123GHIJ"
    static let topic = "com.example.app"
    static let project = "remindd-test"
    /// Generous: under the whole suite on two cores an answer can take seconds, and no test here
    /// is about timeouts.
    static let timeout: Double = 60

    let directory: String
    let certificates: TestCertificates
    let apnsKey = P256.Signing.PrivateKey()
    let googleKey: _RSA.Signing.PrivateKey
    let server: PushServer
    let store: MemoryStateStore
    let clock = Mutex(PushHarness.start)

    /// RSA key generation takes a while: the tests share one key unless they need a stranger's.
    static let sharedGoogleKey = Result { try _RSA.Signing.PrivateKey(keySize: .bits2048) }

    init(sinks: [String] = ["apns"], policy: ReminderPolicy = ReminderPolicy(), freshGoogleKey: Bool = false) throws {
        directory = NSTemporaryDirectory() + "remindd-push-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        certificates = try TestCertificates(directory: directory)
        googleKey = freshGoogleKey ? try _RSA.Signing.PrivateKey(keySize: .bits2048) : try Self.sharedGoogleKey.get()
        server = PushServer(certificates: certificates, apnsKey: apnsKey.publicKey, googleKey: googleKey.publicKey)
        store = MemoryStateStore(sinks: sinks, policy: policy, now: Self.start)
    }

    deinit { try? FileManager.default.removeItem(atPath: directory) }

    var now: @Sendable () -> Date { { [self] in clock.withLock { $0 } } }

    func advance(_ seconds: TimeInterval) { clock.withLock { $0 += seconds } }

    /// A 64-hex-digit APNs token unique to `n`.
    static func apnsToken(_ n: Int) -> String { String(format: "%064x", n + 0xABCD_0000) }

    static func fcmToken(_ n: Int) -> String { "fcm-token:APA91b-\(n)" }

    /// Reports `user` without Always access and with `push` (nil: no address).
    @discardableResult
    func report(
        _ user: String, push: PushUpdate, location: LocationAuthorization = .whileInUse
    ) async throws
        -> ReportOutcome
    {
        try await store.storeReport(
            PermissionReport(location: location, observedAt: now(), push: push), for: Fixtures.userID(user),
            receivedAt: now()
        ).outcome
    }

    func client() throws -> HTTPClient { try PushSink.makeClient(caFile: certificates.caFile) }

    func apnsSink(
        client: HTTPClient, options: PushSink.APNsOptions? = nil, token: APNsProviderToken? = nil
    ) throws -> PushSink {
        let providerToken =
            try token
            ?? APNsProviderToken(pem: apnsKey.pemRepresentation, keyID: Self.keyID, teamID: Self.teamID, now: now)
        return PushSink.apns(
            providerToken: providerToken,
            options: options ?? PushSink.APNsOptions(topic: Self.topic, url: server.url, timeoutSeconds: Self.timeout),
            directory: store, client: client, now: now)
    }

    /// Runs `body` with an apns sink against this harness's server, serving meanwhile.
    func withAPNsSink(
        options: PushSink.APNsOptions? = nil, _ body: (PushSink) async throws -> Void
    ) async throws {
        try await server.serving {
            try await withClient(self) { client in try await body(try apnsSink(client: client, options: options)) }
        }
    }

    var serviceAccountJSON: String {
        let pem = googleKey.pkcs8PEMRepresentation.replacingOccurrences(of: "\n", with: "\\n")
        return """
            {"type":"service_account","project_id":"\(Self.project)","private_key_id":"k1",
             "private_key":"\(pem)","client_email":"remindd@\(Self.project).iam.gserviceaccount.com",
             "token_uri":"\(server.tokenURI)"}
            """
    }

    func fcmSink(client: HTTPClient, options: PushSink.FCMOptions? = nil) throws -> PushSink {
        let account = try GoogleServiceAccount(json: Array(serviceAccountJSON.utf8))
        return PushSink.fcm(
            account: account, options: options ?? PushSink.FCMOptions(url: server.url, timeoutSeconds: Self.timeout),
            directory: store,
            client: client, now: now)
    }

    /// The reminder the policy would send `user` for an episode that began at `start`.
    static func reminder(_ user: String, sequence: Int = 1, episodeStart: Date = start) -> OutboxEvent {
        OutboxEvent(
            .reminder(
                .init(
                    userID: Fixtures.userID(user), title: "App is unable to record trips",
                    body: "Please grant Always access for location.", reason: .locationNotAuthorizedAlways,
                    errors: [.locationNotAuthorizedAlways], sequence: sequence, episodeStartedAt: episodeStart,
                    dueAt: episodeStart + .days(7), createdAt: episodeStart + .days(7))))
    }

    static func withdraw(_ user: String, reminders: Int = 2) -> OutboxEvent {
        OutboxEvent(
            .withdraw(
                .init(
                    userID: Fixtures.userID(user),
                    reminderIDs: (1...reminders).map {
                        SinkEvent.Reminder.id(userID: Fixtures.userID(user), episodeStartedAt: start, sequence: $0)
                    }, episodeStartedAt: start, createdAt: start + .days(8))))
    }

    static func heartbeat(_ user: String, at due: Date) -> OutboxEvent {
        OutboxEvent(
            .heartbeat(.init(userID: Fixtures.userID(user), lastReportAt: start, dueAt: due, createdAt: due)))
    }
}

/// Runs `body` with a push sink client that is shut down afterwards, whatever happens.
func withClient<T>(_ harness: PushHarness, _ body: (HTTPClient) async throws -> T) async throws -> T {
    let client = try harness.client()
    let result: Result<T, any Error>
    do {
        result = .success(try await body(client))
    } catch {
        result = .failure(error)
    }
    try await client.shutdown()
    return try result.get()
}

/// Delivers and returns the sink error, failing the test when the delivery succeeded.
func deliveryError(_ sink: PushSink, _ event: OutboxEvent) async -> SinkError? {
    do {
        let outcome = try await sink.deliver(event)
        Issue.record("expected a failure, got \(outcome)")
        return nil
    } catch {
        return error
    }
}
