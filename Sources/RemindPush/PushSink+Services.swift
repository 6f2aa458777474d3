import AsyncHTTPClient
import CoreMetrics
import Foundation
import NIOCore
import NIOSSL
import RemindCore
import RemindSinks

extension PushSink {
    /// What an `apns` sink needs besides its key (docs/push.md "APNs").
    public struct APNsOptions: Sendable {
        public var topic: String
        public var url: String?
        public var settingsURL: String
        public var expirationSeconds: Int
        public var timeoutSeconds: Double
        public var backgroundPushesPerHour: Int

        public init(
            topic: String, url: String? = nil, settingsURL: String = "app-settings:", expirationSeconds: Int = 86_400,
            timeoutSeconds: Double = 10, backgroundPushesPerHour: Int = 3
        ) {
            self.topic = topic
            self.url = url
            self.settingsURL = settingsURL
            self.expirationSeconds = expirationSeconds
            self.timeoutSeconds = timeoutSeconds
            self.backgroundPushesPerHour = backgroundPushesPerHour
        }
    }

    /// What an `fcm` sink needs besides its service account (docs/push.md "FCM").
    public struct FCMOptions: Sendable {
        public var url: String?
        public var settingsURL: String?
        public var timeoutSeconds: Double
        public var backgroundPushesPerHour: Int

        public init(
            url: String? = nil, settingsURL: String? = nil, timeoutSeconds: Double = 10,
            backgroundPushesPerHour: Int = 3
        ) {
            self.url = url
            self.settingsURL = settingsURL
            self.timeoutSeconds = timeoutSeconds
            self.backgroundPushesPerHour = backgroundPushesPerHour
        }
    }

    /// An `apns` sink. `client` is the sink's own (see `makeClient`); its owner shuts it down.
    public static func apns(
        name: String = "apns", providerToken: APNsProviderToken, options: APNsOptions, directory: any PushDirectory,
        client: HTTPClient, metricsFactory: any MetricsFactory = NOOPMetricsHandler.instance,
        now: @escaping @Sendable () -> Date = { Date() }
    ) -> PushSink {
        let transport = APNsTransport(
            providerToken: providerToken, topic: options.topic, url: options.url, settingsURL: options.settingsURL,
            expirationSeconds: options.expirationSeconds, timeout: .fractionalSeconds(options.timeoutSeconds),
            client: client,
            now: now)
        return PushSink(
            name: name, transport: transport, directory: directory,
            backgroundPushesPerHour: options.backgroundPushesPerHour,
            metrics: PushMetrics(sink: name, factory: metricsFactory), now: now)
    }

    /// An `fcm` sink. `client` is the sink's own (see `makeClient`); its owner shuts it down.
    public static func fcm(
        name: String = "fcm", account: GoogleServiceAccount, options: FCMOptions, directory: any PushDirectory,
        client: HTTPClient, metricsFactory: any MetricsFactory = NOOPMetricsHandler.instance,
        now: @escaping @Sendable () -> Date = { Date() }
    ) -> PushSink {
        let timeout = TimeAmount.fractionalSeconds(options.timeoutSeconds)
        let transport = FCMTransport(
            account: account,
            accessToken: GoogleAccessToken(account: account, client: client, timeout: timeout, now: now),
            url: options.url, settingsURL: options.settingsURL, timeout: timeout, client: client)
        return PushSink(
            name: name, transport: transport, directory: directory,
            backgroundPushesPerHour: options.backgroundPushesPerHour,
            metrics: PushMetrics(sink: name, factory: metricsFactory), now: now)
    }

    public struct ClientError: Error, CustomStringConvertible {
        public let description: String
    }

    /// The HTTP client of one push sink: HTTP/2 where the server offers it by ALPN (APNs and
    /// FCM do), one connection per host, verified TLS with the system's roots plus `caFile`'s.
    public static func makeClient(caFile: String?) throws(ClientError) -> HTTPClient {
        var tls = TLSConfiguration.makeClientConfiguration()
        if let caFile {
            do {
                let roots = try NIOSSLCertificate.fromPEMFile(caFile)
                guard !roots.isEmpty else { throw ClientError(description: "holds no PEM certificate") }
            } catch let error as ClientError {
                throw error
            } catch {
                throw ClientError(description: "is not a readable PEM certificate file (\(error))")
            }
            tls.additionalTrustRoots = [.file(caFile)]
        }
        var configuration = HTTPClient.Configuration(tlsConfiguration: tls)
        configuration.httpVersion = .automatic
        configuration.timeout = .init(connect: TimeAmount.seconds(Int64(10)))
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }
}

extension TimeAmount {
    fileprivate static func fractionalSeconds(_ seconds: Double) -> TimeAmount {
        .nanoseconds(Int64(seconds * 1_000_000_000))
    }
}
