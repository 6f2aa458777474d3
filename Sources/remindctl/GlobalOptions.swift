import ArgumentParser
import Foundation
import RemindConfig

/// The options every command that talks to the daemon takes.
struct GlobalOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "The daemon's Unix socket (default: $REMINDD_SOCKET, else remindd's own default).", valueName: "path"),
        completion: .file())
    var socket: String?

    @Flag(name: .long, help: "Print the API's JSON answer exactly as received.")
    var json = false

    /// `--socket`, else `$REMINDD_SOCKET`, else the socket remindd would use if started here.
    ///
    /// remindd run from a shell listens on `$XDG_RUNTIME_DIR/remindd.sock` (or `./remindd.sock`),
    /// but run by systemd on `/run/remindd/remindd.sock`, while remindctl is always run from a
    /// shell. So when the first does not exist and the packaged one does, the packaged one is
    /// meant; when neither exists the first is named in the error, as `make run` would create it.
    func socketPath(
        environment: [String: String] = ProcessInfo.processInfo.environment,
        currentDirectory: String = FileManager.default.currentDirectoryPath
    ) -> String {
        if let socket { return socket }
        if let variable = environment[ConfigurationLoader.socketVariable], !variable.isEmpty { return variable }
        let here = ConfigurationLoader.Defaults.detect(environment: environment, currentDirectory: currentDirectory)
        let packaged = ConfigurationLoader.Defaults.system.socket
        let exists = { (path: String) in FileManager.default.fileExists(atPath: path) }
        return !exists(here.socket) && exists(packaged) ? packaged : here.socket
    }

    func session() -> Session {
        Session(socketPath: socketPath(), json: json)
    }
}
