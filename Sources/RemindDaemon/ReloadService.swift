import Logging
import ServiceLifecycle
import UnixSignals

/// Reloads the configuration on SIGHUP, like `POST /v1/reload`.
struct ReloadService: Service {
    let runtime: DaemonRuntime

    func run() async throws {
        let signals = await UnixSignalsSequence(trapping: .sighup)
        await cancelWhenGracefulShutdown {
            for await _ in signals {
                _ = try? await runtime.reload(actor: "signal", route: "SIGHUP")
            }
        }
    }
}
