import Foundation
import RemindTesting

/// HTTP exchanges with curl, as a client outside the test process sees the daemon: over TCP
/// or the Unix socket (`--unix-socket` among the arguments), and as user nobody when asked.
enum Curl {
    /// An answer as curl saw it.
    struct Reply {
        var status: Int
        var body: String
        var headers: [String: String]
    }

    /// Runs curl with `arguments` (the URL last), as nobody when `asNobody`.
    static func run(_ arguments: [String], asNobody: Bool = false) throws -> Reply {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("curl-\(UUID())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        // nobody writes the answer's files too.
        chmod(directory, 0o777)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var command =
            ["/usr/bin/curl", "-s", "-D", directory + "/h", "-o", directory + "/b", "-w", "%{http_code}"] + arguments
        if asNobody {
            command = ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] + command
        }
        let result = try SpawnedProcess.run(command[0], Array(command.dropFirst()))
        var fields: [String: String] = [:]
        for line in ((try? String(contentsOfFile: directory + "/h", encoding: .utf8)) ?? "").split(separator: "\r\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return Reply(
            status: Int(result.standardOutput) ?? -1,
            body: (try? String(contentsOfFile: directory + "/b", encoding: .utf8)) ?? "", headers: fields)
    }

    /// One request; the token (if any) goes in `Authorization: Bearer`, a body as JSON.
    static func request(
        _ method: String, _ url: String, token: String? = nil, body: String? = nil, headers: [String] = []
    ) throws -> Reply {
        var arguments = ["-X", method]
        if let token { arguments += ["-H", "Authorization: Bearer \(token)"] }
        if let body { arguments += ["-H", "Content-Type: application/json", "--data-binary", body] }
        for header in headers { arguments += ["-H", header] }
        return try run(arguments + [url])
    }
}
