/// Why `remindd migrate` stopped.
public enum MigrationError: Error, CustomStringConvertible {
    /// Nothing was changed: a configuration is invalid, a side is in use, or the target is not
    /// empty (exit 78, as for a configuration the daemon refuses).
    case refused(String)
    /// The copy failed midway: what was written stays, marked, for `--resume` (exit 1).
    case failed(String)

    public var description: String {
        switch self {
        case .refused(let message), .failed(let message): message
        }
    }

    public var exitCode: Int32 {
        switch self {
        case .refused: 78
        case .failed: 1
        }
    }
}
