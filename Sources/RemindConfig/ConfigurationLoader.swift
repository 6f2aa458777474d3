import Foundation
import RemindCore

/// Loads the configuration the way docs/configuration.md orders its sources: flags over environment over
/// file over defaults.
///
/// The same call serves start-up and reload (`SIGHUP`, `POST /v1/reload`): it reads the file
/// afresh and either returns a complete, valid configuration or throws, so a failed reload
/// leaves the caller's current configuration untouched.
public enum ConfigurationLoader {
    public static let configurationVariable = "REMINDD_CONFIG"
    public static let stateDirectoryVariable = "REMINDD_STATE_DIRECTORY"
    public static let socketVariable = "REMINDD_SOCKET"

    /// Loads and validates the configuration.
    ///
    /// - Parameters:
    ///   - path: `--config FILE`. Without it `REMINDD_CONFIG` names the file, and without that
    ///     `defaults.configurationPath` is read if it exists.
    ///   - environment: the process environment; empty variables count as unset.
    ///   - stateDirectoryFlag: `--state-directory`, over `REMINDD_STATE_DIRECTORY` and the file.
    ///   - socketFlag: `--socket`, over `REMINDD_SOCKET` and `listen.socket`.
    ///   - defaults: what applies when nothing else sets the state directory or socket.
    /// - Throws: `ConfigurationError` naming the file and the key path, flag or variable.
    public static func load(
        path: String?,
        environment: [String: String],
        stateDirectoryFlag: String?,
        socketFlag: String?,
        defaults: Defaults
    ) throws(ConfigurationError) -> DaemonConfiguration {
        let file = configurationFile(path: path, environment: environment, defaults: defaults)
        var configuration = DaemonConfiguration(defaults: defaults)
        if let bytes = try read(file.path, required: file.isExplicit) {
            do {
                configuration = try DaemonConfiguration(parsing: bytes, defaults: defaults)
            } catch {
                throw ConfigurationError(kind: .invalid, path: file.path, validationError: error)
            }
        }
        if let directory = try override(
            flag: stateDirectoryFlag, "--state-directory", environment, stateDirectoryVariable)
        {
            configuration.stateDirectory = directory
        }
        if let socket = try override(flag: socketFlag, "--socket", environment, socketVariable) {
            configuration.listen.socket = socket
        }
        return configuration
    }

    /// The file `load` reads, and whether it was named (a named file must exist).
    public static func configurationFile(
        path: String?, environment: [String: String], defaults: Defaults
    )
        -> (path: String, isExplicit: Bool)
    {
        if let path { return (path, true) }
        if let named = environment[configurationVariable], !named.isEmpty { return (named, true) }
        return (defaults.configurationPath, false)
    }

    /// The file's bytes, or nil when an implicit default file does not exist.
    static func read(_ path: String, required: Bool) throws(ConfigurationError) -> Data? {
        do {
            return try Data(contentsOf: URL(fileURLWithPath: path))
        } catch let error as CocoaError where error.code == .fileReadNoSuchFile && !required {
            return nil
        } catch {
            throw ConfigurationError(
                kind: .unreadable, path: path,
                validationError: ValidationError(field: "", reason: "cannot be read: \(reason(error))"))
        }
    }

    /// The system's words for a read error (`No such file or directory`), not Foundation's.
    private static func reason(_ error: any Error) -> String {
        if let underlying = (error as? CocoaError)?.underlying as NSError?, underlying.domain == NSPOSIXErrorDomain {
            return String(cString: strerror(Int32(underlying.code)))
        }
        return String(describing: error)
    }

    /// The flag's value, else the variable's; an empty flag is an error, an empty variable unset.
    private static func override(
        flag: String?, _ flagName: String, _ environment: [String: String], _ variable: String
    ) throws(ConfigurationError) -> String? {
        let value: String
        let source: String
        if let flag {
            (value, source) = (flag, flagName)
        } else if let fromEnvironment = environment[variable], !fromEnvironment.isEmpty {
            (value, source) = (fromEnvironment, variable)
        } else {
            return nil
        }
        do throws(ValidationError) {
            if flagName == "--socket" {
                try ListenConfiguration.validateSocket(value, field: source)
            } else if let reason = PathRule.problem(value) {
                throw ValidationError(field: source, reason: reason)
            }
        } catch {
            throw ConfigurationError(kind: .invalid, path: nil, validationError: error)
        }
        return value
    }
}
