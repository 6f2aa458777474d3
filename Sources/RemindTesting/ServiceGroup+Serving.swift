import Logging
import RemindCore
import ServiceLifecycle

/// Runs `server` (a Hummingbird application) while `body` runs, and stops it afterwards:
/// `ready` must be signalled once it listens.
///
/// Stopped by a graceful shutdown, never by cancelling: cancelling the server while a client's
/// keep-alive connection is open traps in NIO ("Deinited NIOAsyncWriter without calling
/// finish()") and takes the whole test process with it.
func serving<T>(
    _ server: some Service, ready: AsyncSignal, label: String, _ body: () async throws -> T
)
    async throws -> T
{
    let group = ServiceGroup(
        configuration: .init(services: [server], logger: Logger(label: label) { _ in SwiftLogNoOpLogHandler() }))
    let task = Task { try await group.run() }
    await ready.wait()
    let result: Result<T, any Error>
    do {
        result = .success(try await body())
    } catch {
        result = .failure(error)
    }
    await group.triggerGracefulShutdown()
    try? await task.value
    return try result.get()
}
