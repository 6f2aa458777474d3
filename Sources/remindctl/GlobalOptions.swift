import ArgumentParser
import Foundation
import RemindClient
import RemindConfig

/// The options every command that talks to the daemon takes.
struct GlobalOptions: ParsableArguments {
    @Option(
        name: .long,
        help: ArgumentHelp(
            "The daemon's Unix socket (default: $REMINDD_SOCKET, else remindd's own default).", valueName: "path"),
        completion: .file())
    var socket: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Query the daemon over its TCP listener, e.g. https://host:8650, instead of the Unix socket "
                + "(default: $REMINDCTL_URL). Needs --token-file.", valueName: "url"))
    var url: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "PEM CA certificate(s) to verify the daemon's certificate with (default: $REMINDCTL_CACERT, "
                + "else the system's).", valueName: "file"),
        completion: .file())
    var cacert: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "PEM client certificate for mutual TLS (default: $REMINDCTL_CERT).", valueName: "file"),
        completion: .file())
    var cert: String?

    @Option(
        name: .long,
        help: ArgumentHelp("PEM key of --cert (default: $REMINDCTL_KEY).", valueName: "file"),
        completion: .file())
    var key: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "The file holding the daemon's bearer token, for --url (default: $REMINDCTL_TOKEN_FILE).",
            valueName: "file"),
        completion: .file())
    var tokenFile: String?

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

    /// The TCP endpoint from `--url` (or `$REMINDCTL_URL`) and its TLS files and token; nil for
    /// the Unix socket. The token is read from a file so it never shows in `ps`.
    func remote(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> RemoteEndpoint? {
        let value = { (option: String?, variable: String) -> String? in
            option ?? environment[variable].flatMap { $0.isEmpty ? nil : $0 }
        }
        guard let url = value(self.url, "REMINDCTL_URL") else { return nil }
        guard url.hasPrefix("https://") || url.hasPrefix("http://") else {
            throw ValidationError("--url must start with https:// (or http://): \(url)")
        }
        guard let tokenFile = value(self.tokenFile, "REMINDCTL_TOKEN_FILE") else {
            throw ValidationError("--url needs --token-file (or $REMINDCTL_TOKEN_FILE): TCP always needs the token")
        }
        guard let bytes = FileManager.default.contents(atPath: tokenFile) else {
            throw ValidationError("cannot read the token file \(tokenFile)")
        }
        let token = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard !token.isEmpty else { throw ValidationError("the token file \(tokenFile) is empty") }
        let cert = value(self.cert, "REMINDCTL_CERT")
        let key = value(self.key, "REMINDCTL_KEY")
        guard (cert == nil) == (key == nil) else { throw ValidationError("--cert and --key go together") }
        return RemoteEndpoint(
            url: url, caFile: value(cacert, "REMINDCTL_CACERT"), certFile: cert, keyFile: key, token: token)
    }

    func session() throws -> Session {
        if let remote = try remote() {
            return Session(client: DaemonClient(http: DaemonHTTPClient(remote: remote)), json: json)
        }
        return Session(socketPath: socketPath(), json: json)
    }
}
