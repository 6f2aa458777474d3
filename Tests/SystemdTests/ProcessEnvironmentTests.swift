import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// The tests that change process-wide state: environment variables (`NOTIFY_SOCKET`, `LISTEN_*`, `WATCHDOG_*`)
/// and fd 3. `setenv` races with `getenv` on other threads, so these suites, nested in extensions, run one test at
/// a time.
@Suite(.serialized)
struct ProcessEnvironmentTests {}

/// Sets (or, for nil, unsets) the variables around `body`, then restores what was there before.
func withEnvironment<Result>(_ values: [String: String?], _ body: () throws -> Result) rethrows -> Result {
    let previous = values.keys.map { name in (name, getenv(name).map { String(cString: $0) }) }
    for (name, value) in values {
        assignEnvironment(name, value)
    }
    defer {
        for (name, value) in previous {
            assignEnvironment(name, value)
        }
    }
    return try body()
}

private func assignEnvironment(_ name: String, _ value: String?) {
    if let value {
        setenv(name, value, 1)
    } else {
        unsetenv(name)
    }
}
