extension ConfigurationLoader {
    /// What a key that no flag, environment variable or file sets falls back to.
    ///
    /// Two presets: `.system` for a packaged daemon started by systemd, and `.firstRun` for a
    /// person trying remindd from a shell without root, whose paths must be writable without
    /// any set-up. `detect` picks between them.
    public struct Defaults: Sendable, Equatable {
        public static let systemConfigurationPath = "/etc/remindd/remindd.json"

        public var stateDirectory: String
        public var socket: String
        /// Read when neither `--config` nor `REMINDD_CONFIG` names a file; missing is fine.
        public var configurationPath: String

        public init(stateDirectory: String, socket: String, configurationPath: String = systemConfigurationPath) {
            self.stateDirectory = stateDirectory
            self.socket = socket
            self.configurationPath = configurationPath
        }

        /// The packaged daemon: `/var/lib/remindd` and `/run/remindd/remindd.sock`.
        public static let system = Defaults(stateDirectory: "/var/lib/remindd", socket: "/run/remindd/remindd.sock")

        /// Paths an unprivileged user can write: `$XDG_STATE_HOME/remindd` (else `./.remindd`) and
        /// `$XDG_RUNTIME_DIR/remindd.sock` (else `./remindd.sock`), the `./` being
        /// `currentDirectory`. Relative XDG values are ignored, as the XDG Base Directory
        /// specification asks.
        public static func firstRun(environment: [String: String], currentDirectory: String) -> Defaults {
            let state = absolute(environment["XDG_STATE_HOME"]).map { join($0, "remindd") }
            let runtime = absolute(environment["XDG_RUNTIME_DIR"]).map { join($0, "remindd.sock") }
            return Defaults(
                stateDirectory: state ?? join(currentDirectory, ".remindd"),
                socket: runtime ?? join(currentDirectory, "remindd.sock")
            )
        }

        /// `.system` when remindd runs as a systemd service, else `.firstRun`.
        ///
        /// systemd marks a service's environment: `INVOCATION_ID` is set for every unit it starts,
        /// `STATE_DIRECTORY` and `RUNTIME_DIRECTORY` when the unit has `StateDirectory=` and
        /// `RuntimeDirectory=`. Those two are used when present — `$STATE_DIRECTORY` as the state
        /// directory and `$RUNTIME_DIRECTORY/remindd.sock` as the socket — so a unit that renames
        /// its directories, or a user unit (whose directories live under `~`), needs no extra
        /// flags. When they list several directories (colon-separated) the first is used.
        public static func detect(environment: [String: String], currentDirectory: String) -> Defaults {
            let stateDirectory = firstEntry(environment["STATE_DIRECTORY"])
            let runtimeDirectory = firstEntry(environment["RUNTIME_DIRECTORY"])
            let underSystemd = !(environment["INVOCATION_ID"] ?? "").isEmpty
            guard underSystemd || stateDirectory != nil || runtimeDirectory != nil else {
                return .firstRun(environment: environment, currentDirectory: currentDirectory)
            }
            var defaults = Defaults.system
            if let stateDirectory { defaults.stateDirectory = stateDirectory }
            if let runtimeDirectory { defaults.socket = join(runtimeDirectory, "remindd.sock") }
            return defaults
        }

        private static func absolute(_ path: String?) -> String? {
            guard let path, path.hasPrefix("/") else { return nil }
            return path
        }

        private static func firstEntry(_ list: String?) -> String? {
            guard let list, let first = list.split(separator: ":").first, first.hasPrefix("/") else { return nil }
            return String(first)
        }

        private static func join(_ directory: String, _ name: String) -> String {
            directory.hasSuffix("/") ? directory + name : directory + "/" + name
        }
    }
}
