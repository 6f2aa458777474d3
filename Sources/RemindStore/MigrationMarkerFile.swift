#if canImport(Glibc)
    import Glibc
#endif

/// The note `remindd migrate` leaves at the top of a state directory it is writing
/// (`StateTransfer`): `migration.json`, present from the first write to the last.
public enum MigrationMarkerFile {
    static let name = "migration.json"

    /// The marker of an unfinished migration into `directory`, if it holds one: a daemon does
    /// not start on such a directory.
    public static func unfinished(in directory: String) -> String? {
        try? read(in: directory)
    }

    static func read(in directory: String) throws(StoreError) -> String? {
        try FileIO.read(directory + "/" + name).map { String(decoding: $0, as: UTF8.self) }
    }

    static func write(_ marker: String?, in directory: String) throws(StoreError) {
        let path = directory + "/" + name
        if let marker {
            try FileIO.replaceFile(
                path, with: Array(marker.utf8), temporaryPath: path + ".tmp", durable: true)
        } else if unlink(path) != 0 && errno != ENOENT {
            throw .io("unlink", path)
        }
        try FileIO.fsyncDirectory(directory)
    }
}
