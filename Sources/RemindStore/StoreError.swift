#if canImport(Glibc)
    import Glibc
#endif

/// Why the store could not do what was asked.
///
/// A struct wrapping a private enum, so cases can be added without breaking callers; the
/// daemon maps `isDiskFull`/`isReadOnly` to 503 at its edge.
public struct StoreError: Error, Sendable, Equatable, CustomStringConvertible {
    enum Kind: Equatable {
        case io(operation: String, path: String, errno: Int32)
        case locked(lockFile: String, holder: String)
        case corrupt(path: String, reason: String)
        case layout(directory: String, reason: String)
        case poolStopped
        case databaseUnavailable(reason: String)
        case database(reason: String)
    }

    let kind: Kind

    static func io(_ operation: String, _ path: String, errno code: Int32 = errno) -> StoreError {
        StoreError(kind: .io(operation: operation, path: path, errno: code))
    }

    static func locked(_ lockFile: String, holder: String) -> StoreError {
        StoreError(kind: .locked(lockFile: lockFile, holder: holder))
    }

    /// The state directory is divided otherwise than configured (`storage.parts`).
    static func layout(_ directory: String, _ reason: String) -> StoreError {
        StoreError(kind: .layout(directory: directory, reason: reason))
    }

    static func corrupt(_ path: String, _ reason: String) -> StoreError {
        StoreError(kind: .corrupt(path: path, reason: reason))
    }

    /// The I/O pool has shut down: the daemon is stopping.
    static let poolStopped = StoreError(kind: .poolStopped)

    /// The database cannot be reached (down, restarting, connection lost, or no connection
    /// within the time a request may wait): nothing was changed; retrying later may succeed.
    /// `reason` must not hold secrets (a URL's password): callers pass what the client said.
    public static func databaseUnavailable(_ reason: String) -> StoreError {
        StoreError(kind: .databaseUnavailable(reason: reason))
    }

    /// The database refused a statement for a reason of its own (a bug, or a schema changed
    /// by hand): nothing was changed.
    public static func database(_ reason: String) -> StoreError {
        StoreError(kind: .database(reason: reason))
    }

    /// The database is unreachable: reports get 503 and the daemon retries.
    public var isUnavailable: Bool {
        if case .databaseUnavailable = kind { return true }
        return false
    }

    /// The disk is full (or over quota): writes fail until space returns.
    public var isDiskFull: Bool {
        if case .io(_, _, let code) = kind { return code == ENOSPC || code == EDQUOT }
        return false
    }

    /// The file system is read-only.
    public var isReadOnly: Bool {
        if case .io(_, _, let code) = kind { return code == EROFS }
        return false
    }

    /// A configuration problem (exit 78), not a fault of the disk.
    public var isLayoutMismatch: Bool {
        if case .layout = kind { return true }
        return false
    }

    /// Another daemon holds the state directory.
    public var isLocked: Bool {
        if case .locked = kind { return true }
        return false
    }

    public var description: String {
        switch kind {
        case .io(let operation, let path, let code):
            "\(operation) \(path): \(String(cString: strerror(code)))"
        case .locked(let lockFile, let holder):
            "the state directory is in use by another remindd (\(holder)); lock file \(lockFile)"
        case .corrupt(let path, let reason):
            "\(path): \(reason)"
        case .layout(let directory, let reason):
            "the state directory \(directory) \(reason)"
        case .poolStopped:
            "the I/O pool has stopped (the daemon is shutting down)"
        case .databaseUnavailable(let reason):
            "the database is unavailable: \(reason)"
        case .database(let reason):
            "the database refused: \(reason)"
        }
    }
}
