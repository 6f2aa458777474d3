import AsyncHTTPClient
import Foundation
import Logging
import NIOPosix
import RemindConfig
import RemindCore
import RemindSinks
import Systemd

extension Daemon {
    /// The sinks of the configuration. The push sinks' HTTP clients are appended to `clients`
    /// as they are made, so that the caller shuts them down even when a later sink fails.
    static func makeSinks(
        _ sinks: [SinkConfiguration], logger: Logger, metrics: DaemonMetrics, io: NIOThreadPool,
        directory: any PushDirectory, wallClock: @escaping @Sendable () -> Date, clients: inout [HTTPClient]
    ) throws(StartupError) -> [DaemonRuntime.SinkHandle] {
        var handles: [DaemonRuntime.SinkHandle] = []
        for (index, configuration) in sinks.enumerated() {
            let sink: any EventSink
            switch configuration.kind {
            case .apns, .fcm:
                guard
                    let made = try PushSinkFactory.make(
                        configuration, index: index, directory: directory, metrics: metrics.factory,
                        wallClock: wallClock)
                else { continue }
                clients.append(made.client)
                sink = made.sink
            case .journal:
                sink = JournalSink(name: configuration.name, messageIDs: eventMessageIDs)
            case .file(let file):
                sink = FileSink(name: configuration.name, path: file.path, io: io)
            case .exec(let exec):
                sink = ExecSink(
                    name: configuration.name, command: exec.command, timeoutSeconds: exec.timeoutSeconds, io: io)
            case .webhook(let hook):
                var secret: String?
                if let secretFile = hook.secretFile {
                    guard let bytes = FileManager.default.contents(atPath: secretFile) else {
                        throw StartupError(
                            "remindd: sink \"\(configuration.name)\": cannot read secretFile \(secretFile)",
                            exitCode: 78)
                    }
                    secret = String(decoding: bytes, as: UTF8.self)
                }
                do {
                    sink = try WebhookSink(
                        name: configuration.name, url: hook.url, secret: secret, timeoutSeconds: hook.timeoutSeconds,
                        headers: hook.headers)
                } catch {
                    throw StartupError("remindd: sink \"\(configuration.name)\": \(error.message)", exitCode: 78)
                }
            }
            let rateLimit = configuration.rateLimit.ratePerSecond.map {
                TokenBucket(ratePerSecond: $0, burst: configuration.rateLimit.burst)
            }
            // A webhook says how many requests its receiver takes at once. A file sink takes many
            // deliveries at once so that they share an fsync (each user's events still arrive in
            // order). The journal and commands take one at a time.
            var maxConcurrency = 1
            switch configuration.kind {
            case .webhook(let hook): maxConcurrency = hook.maxConcurrency
            case .apns(let apns): maxConcurrency = apns.settings.maxConcurrency
            case .fcm(let fcm): maxConcurrency = fcm.settings.maxConcurrency
            case .file: maxConcurrency = Self.fileSinkConcurrency
            case .journal, .exec: break
            }
            let statistics = SinkStatistics(sink: sink.name, type: sink.type, factory: metrics.factory)
            handles.append(
                .init(
                    sink: sink, statistics: statistics, retry: configuration.retry, rateLimit: rateLimit,
                    maxConcurrency: maxConcurrency))
        }
        return handles
    }

    /// Deliveries a file sink group-commits at most: enough to take a disk's fsync rate to
    /// tens of thousands of lines a second, few enough to bound a batch.
    static let fileSinkConcurrency = 256

    static let eventMessageIDs: [SinkEvent.Kind: String] = [
        .reminder: MessageID.reminderDelivered.rawValue,
        .withdraw: MessageID.reminderWithdrawn.rawValue,
        .heartbeat: MessageID.heartbeatSent.rawValue,
    ]
}
