import AsyncHTTPClient
import CoreMetrics
import Foundation
import RemindConfig
import RemindCore
import RemindPush
import RemindSinks

/// Builds the `apns` and `fcm` sinks from their configuration, reading the key and the
/// service-account file: what `RemindConfig` cannot check without reading secrets. A file
/// that is missing, unreadable or of the wrong kind is a configuration error (exit 78) naming
/// the key path; the message never quotes the file's contents.
enum PushSinkFactory {
    static func make(
        _ configuration: SinkConfiguration, index: Int, directory: any PushDirectory, metrics: any MetricsFactory,
        wallClock: @escaping @Sendable () -> Date
    ) throws(StartupError) -> (sink: PushSink, client: HTTPClient)? {
        let path = "sinks[\(index)]"
        switch configuration.kind {
        case .apns(let apns):
            let pem = try read(apns.keyFile, key: "\(path).keyFile")
            let token: APNsProviderToken
            do {
                token = try APNsProviderToken(pem: pem, keyID: apns.keyID, teamID: apns.teamID, now: wallClock)
            } catch {
                throw invalid("\(path).keyFile", "\(apns.keyFile) \(error.description)")
            }
            let client = try client(apns.settings, path: path)
            let options = PushSink.APNsOptions(
                topic: apns.topic, url: apns.settings.url,
                settingsURL: apns.settings.settingsURL ?? APNsSinkConfiguration.defaultSettingsURL,
                expirationSeconds: apns.expirationSeconds, timeoutSeconds: apns.settings.timeoutSeconds,
                backgroundPushesPerHour: apns.settings.backgroundPushesPerHour)
            let sink = PushSink.apns(
                name: configuration.name, providerToken: token, options: options, directory: directory, client: client,
                metricsFactory: metrics, now: wallClock)
            return (sink, client)
        case .fcm(let fcm):
            let text = try read(fcm.serviceAccountFile, key: "\(path).serviceAccountFile")
            let account: GoogleServiceAccount
            do {
                account = try GoogleServiceAccount(json: Array(text.utf8))
            } catch {
                throw invalid("\(path).serviceAccountFile", "\(fcm.serviceAccountFile) \(error.description)")
            }
            let client = try client(fcm.settings, path: path)
            let options = PushSink.FCMOptions(
                url: fcm.settings.url, settingsURL: fcm.settings.settingsURL,
                timeoutSeconds: fcm.settings.timeoutSeconds,
                backgroundPushesPerHour: fcm.settings.backgroundPushesPerHour)
            let sink = PushSink.fcm(
                name: configuration.name, account: account, options: options, directory: directory, client: client,
                metricsFactory: metrics, now: wallClock)
            return (sink, client)
        case .journal, .file, .exec, .webhook:
            return nil
        }
    }

    private static func client(_ settings: PushSinkSettings, path: String) throws(StartupError) -> HTTPClient {
        do {
            return try PushSink.makeClient(caFile: settings.caFile)
        } catch {
            throw invalid("\(path).caFile", "\(settings.caFile ?? "") \(error.description)")
        }
    }

    private static func read(_ file: String, key: String) throws(StartupError) -> String {
        guard FileManager.default.isReadableFile(atPath: file), let bytes = FileManager.default.contents(atPath: file)
        else {
            throw invalid(key, "cannot read \(file) (missing, or not readable by the daemon's user)")
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func invalid(_ key: String, _ reason: String) -> StartupError {
        StartupError("remindd: \(key): \(reason)", exitCode: 78)
    }
}
