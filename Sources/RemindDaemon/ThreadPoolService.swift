import NIOPosix
import ServiceLifecycle

/// Keeps the blocking-I/O pool for the daemon's lifetime and shuts it down once every service
/// listed after it has stopped (services stop in reverse order).
struct ThreadPoolService: Service {
    let pool: NIOThreadPool

    func run() async throws {
        try? await gracefulShutdown()
        try await pool.shutdownGracefully()
    }
}
