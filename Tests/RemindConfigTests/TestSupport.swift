import Foundation
import RemindConfig
import RemindCore

/// The validation error a configuration text is refused with, or nil when it is accepted.
func refusal(_ text: String) -> ValidationError? {
    do {
        _ = try DaemonConfiguration(parsing: Array(text.utf8))
        return nil
    } catch {
        return error
    }
}

func parse(_ text: String, defaults: ConfigurationLoader.Defaults = .system) throws -> DaemonConfiguration {
    try DaemonConfiguration(parsing: Array(text.utf8), defaults: defaults)
}

/// A fresh directory under the system's temporary directory, removed when released.
final class TemporaryDirectory {
    let path: String

    init() throws {
        path = NSTemporaryDirectory() + "remindd-config-tests-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// Writes `contents` to `name` inside the directory and returns its path.
    @discardableResult
    func write(_ name: String, _ contents: String) throws -> String {
        let file = path + "/" + name
        try contents.write(toFile: file, atomically: true, encoding: .utf8)
        return file
    }
}

/// The package's root directory, found from this file's path.
let packageRoot = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
