import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdHTTP2
import Logging
import NIOCore
import NIOSSL
import RemindCore
import ServiceLifecycle
import Synchronization
import _CryptoExtras

/// A real HTTP/2 server over TLS on loopback that speaks what the push sinks talk to: APNs'
/// provider API (`POST /3/device/{token}`), Google's OAuth token endpoint (`POST /token`) and
/// FCM v1 (`POST /v1/projects/{project}/messages:send`).
///
/// Like the real services it checks credentials before anything else: an APNs request whose
/// JWT does not verify with `apnsKey` is answered `403 InvalidProviderToken`; a grant whose
/// assertion does not verify with `googleKey` is `400 invalid_grant`; an FCM request without
/// an access token this server issued is `401`. What passes is recorded and answered by
/// `respond` (default: 200), which scripts the statuses and reasons a test needs.
public final class PushServer: Sendable {
    public struct Received: Sendable {
        public var path: String
        /// Header names lower-cased.
        public var headers: [String: String]
        public var body: [UInt8]
        /// Which TCP connection carried it (HTTP/2 multiplexes many requests on one).
        public var connection: ObjectIdentifier

        public var json: JSONObject? {
            guard case .object(let object)? = try? JSONParser.parse(body) else { return nil }
            return object
        }
    }

    public struct Reply: Sendable {
        public var status: Int
        public var headers: [String: String]
        public var body: String

        public init(_ status: Int, headers: [String: String] = [:], body: String = "") {
            self.status = status
            self.headers = headers
            self.body = body
        }

        /// APNs' error answer: `{"reason":…}`.
        public static func apns(_ status: Int, _ reason: String, headers: [String: String] = [:]) -> Reply {
            Reply(status, headers: headers, body: #"{"reason":"\#(reason)"}"#)
        }

        /// FCM's error answer with its `errorCode` detail.
        public static func fcm(_ status: Int, _ rpcStatus: String, errorCode: String, field: String? = nil) -> Reply {
            var details =
                #"{"@type":"type.googleapis.com/google.firebase.fcm.v1.FcmError","errorCode":"\#(errorCode)"}"#
            if let field {
                details +=
                    #",{"@type":"type.googleapis.com/google.rpc.BadRequest","fieldViolations":[{"field":"\#(field)","description":"Invalid registration token"}]}"#
            }
            return Reply(
                status,
                body:
                    #"{"error":{"code":\#(status),"message":"scripted","status":"\#(rpcStatus)","details":[\#(details)]}}"#
            )
        }
    }

    public let received = Mutex<[Received]>([])
    /// Every APNs provider token and Google assertion that verified, in arrival order.
    public let providerTokens = Mutex<[String]>([])
    public let grants = Mutex<[JWTVerifier.Token]>([])
    /// Access tokens issued by `/token`; the FCM endpoint accepts only these.
    public let accessTokens = Mutex<Set<String>>([])
    /// Answers requests that passed the credential checks.
    public let respond: Mutex<@Sendable (Received) async -> Reply>
    /// How long issued access tokens live (`expires_in`).
    public let accessTokenLifetime = Mutex(3600)

    let apnsKey: P256.Signing.PublicKey?
    let googleKey: _RSA.Signing.PublicKey?
    let certificates: TestCertificates
    private let port = Mutex(0)
    private let ready = AsyncSignal()

    public init(
        certificates: TestCertificates, apnsKey: P256.Signing.PublicKey? = nil,
        googleKey: _RSA.Signing.PublicKey? = nil
    ) {
        self.certificates = certificates
        self.apnsKey = apnsKey
        self.googleKey = googleKey
        let ok: @Sendable (Received) async -> Reply = { _ in Reply(200) }
        self.respond = Mutex(ok)
    }

    public var url: String { "https://127.0.0.1:\(port.withLock { $0 })" }
    public var tokenURI: String { url + "/token" }

    public var requests: [Received] { received.withLock { $0 } }

    /// The requests that reached `respond` on `path` prefix (`/3/device/`, `/v1/projects/`).
    public func requests(to prefix: String) -> [Received] {
        received.withLock { $0.filter { $0.path.hasPrefix(prefix) } }
    }

    public func respond(_ handler: @escaping @Sendable (Received) async -> Reply) {
        respond.withLock { $0 = handler }
    }

    /// Runs the server in `body` and stops it afterwards.
    public func serving<T>(_ body: () async throws -> T) async throws -> T {
        let router = Router(context: PushServerContext.self)
        router.post("/3/device/{token}") { [self] request, context in
            try await handleAPNs(request, context)
        }
        router.post("/token") { [self] request, context in
            try await handleGrant(request, context)
        }
        router.post("/v1/projects/{project}/{method}") { [self] request, context in
            try await handleFCM(request, context)
        }
        var tls = TLSConfiguration.makeServerConfiguration(
            certificateChain: try NIOSSLCertificate.fromPEMFile(certificates.serverCert).map { .certificate($0) },
            privateKey: .privateKey(try NIOSSLPrivateKey(file: certificates.serverKey, format: .pem)))
        tls.minimumTLSVersion = .tlsv12
        let app = Application(
            router: router, server: try .http2Upgrade(tlsConfiguration: tls),
            configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { [self] channel in
                port.withLock { $0 = channel.localAddress?.port ?? 0 }
                ready.signal()
            }, logger: Logger(label: "push-server") { _ in SwiftLogNoOpLogHandler() })
        return try await RemindTesting.serving(app, ready: ready, label: "push-server", body)
    }

    private func record(_ request: Request, _ context: PushServerContext) async throws -> Received {
        var request = request
        let bytes = try await request.collectBody(upTo: 1 << 20)
        var headers: [String: String] = [:]
        for field in request.headers { headers[field.name.canonicalName.lowercased()] = field.value }
        return Received(
            path: request.uri.path, headers: headers, body: Array(buffer: bytes), connection: context.connection)
    }

    private func answer(_ request: Received) async -> Response {
        received.withLock { $0.append(request) }
        let handler = respond.withLock { $0 }
        return Self.response(await handler(request))
    }

    private static func response(_ reply: Reply) -> Response {
        var response = Response(
            status: .init(code: reply.status), body: .init(byteBuffer: ByteBuffer(string: reply.body)))
        for (name, value) in reply.headers { response.headers[HTTPField.Name(name)!] = value }
        if !reply.body.isEmpty { response.headers[.contentType] = "application/json" }
        return response
    }

    private func handleAPNs(_ request: Request, _ context: PushServerContext) async throws -> Response {
        let received = try await record(request, context)
        let authorization = received.headers["authorization"] ?? ""
        guard authorization.hasPrefix("bearer "), let apnsKey,
            JWTVerifier.verifyES256(String(authorization.dropFirst(7)), key: apnsKey) != nil
        else {
            return Self.response(.apns(403, "InvalidProviderToken"))
        }
        let token = String(authorization.dropFirst(7))
        providerTokens.withLock { if !$0.contains(token) { $0.append(token) } }
        return await answer(received)
    }

    private func handleGrant(_ request: Request, _ context: PushServerContext) async throws -> Response {
        let received = try await record(request, context)
        let form = String(decoding: received.body, as: UTF8.self)
        var fields: [String: String] = [:]
        for pair in form.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map { String($0).removingPercentEncoding ?? "" }
            if parts.count == 2 { fields[parts[0]] = parts[1] }
        }
        guard fields["grant_type"] == "urn:ietf:params:oauth:grant-type:jwt-bearer",
            let assertion = fields["assertion"],
            let googleKey, let verified = JWTVerifier.verifyRS256(assertion, key: googleKey)
        else {
            return Self.response(Reply(400, body: #"{"error":"invalid_grant","error_description":"Invalid JWT"}"#))
        }
        grants.withLock { $0.append(verified) }
        let token = "ya29.test-\(UUID().uuidString)"
        accessTokens.withLock { _ = $0.insert(token) }
        let lifetime = accessTokenLifetime.withLock { $0 }
        return Self.response(
            Reply(200, body: #"{"access_token":"\#(token)","expires_in":\#(lifetime),"token_type":"Bearer"}"#))
    }

    private func handleFCM(_ request: Request, _ context: PushServerContext) async throws -> Response {
        let received = try await record(request, context)
        let authorization = received.headers["authorization"] ?? ""
        guard authorization.hasPrefix("Bearer "),
            accessTokens.withLock({ $0.contains(String(authorization.dropFirst(7))) })
        else {
            return Self.response(
                Reply(
                    401,
                    body:
                        #"{"error":{"code":401,"message":"Request had invalid authentication credentials.","status":"UNAUTHENTICATED"}}"#
                ))
        }
        return await answer(received)
    }
}

/// The request context of `PushServer`: which connection a request came on (an HTTP/2
/// stream's parent channel is its connection).
public struct PushServerContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    let connection: ObjectIdentifier

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        connection = ObjectIdentifier(source.channel.parent ?? source.channel)
    }
}
