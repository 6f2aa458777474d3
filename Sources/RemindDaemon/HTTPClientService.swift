import AsyncHTTPClient
import ServiceLifecycle

/// Keeps the push sinks' HTTP clients (each with its HTTP/2 connection) for the daemon's
/// lifetime and shuts them down once the dispatchers using them have stopped (it is listed
/// before them, and services stop in reverse order).
struct HTTPClientService: Service {
    let clients: [HTTPClient]

    func run() async throws {
        try? await gracefulShutdown()
        for client in clients { try? await client.shutdown() }
    }
}
