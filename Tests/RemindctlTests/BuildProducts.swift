import Foundation

/// Where the package's executables are: beside the test bundle in the build directory
/// (`.build/debug`, or the scratch path the tests were built with).
enum BuildProducts {
    static func path(of executable: String) -> String {
        let bundleDirectory = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let candidate = bundleDirectory.appendingPathComponent(executable).path
        if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        return root.appendingPathComponent(".build/debug/\(executable)").path
    }

    /// A fresh temporary directory.
    static func temporaryDirectory(_ prefix: String) throws -> String {
        var template = Array("/tmp/\(prefix)-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw POSIXError(.EIO) }
        return String(cString: made)
    }
}
