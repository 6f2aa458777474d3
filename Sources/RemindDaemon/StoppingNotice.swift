import Logging
import ServiceLifecycle
import Systemd

/// Sends `STOPPING=1` as soon as shutdown begins (it is the last service, so the first told).
struct StoppingNotice: Service {
    let runtime: DaemonRuntime

    func run() async throws {
        try? await gracefulShutdown()
        _ = runtime.notifier.stopping()
        runtime.logger.notice(
            "stopping: finishing in-flight requests and deliveries",
            metadata: [MessageID.metadataKey: MessageID.stopping.metadataValue])
    }
}
