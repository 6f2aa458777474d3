import Foundation
import RemindCore
import RemindTesting
import Testing

/// `remindctl export` against a real daemon: the API's NDJSON stream on standard output,
/// nothing on standard error when it is not a terminal.
@Suite(.ownThread)
struct ExportCommandTests {
    /// Every user's status, one line each in byte order of the ID, exactly the stream
    /// `GET /v1/users` sends; `--after` starts after an ID.
    @Test func exportWritesEveryUserAsNDJSON() throws {
        let daemon = try DaemonProcess.started()
        for index in 0..<1_500 {
            try daemon.report("u-\(index)", #"{"location":"whileInUse"}"#)
        }
        try daemon.report("A", #"{"location":"always"}"#)
        let result = try Remindctl.run(["export"], socket: daemon.socketPath)
        #expect(result.status == 0)
        #expect(result.standardError == "")
        let stream = try daemon.client.send("GET", "/v1/users", headers: ["Accept": "application/x-ndjson"]).text
        #expect(result.standardOutput == stream)
        let ids = result.standardOutput.split(separator: "\n").map { line -> String in
            guard case .object(let object)? = try? JSONParser.parse(Array(line.utf8)),
                case .string(let id)? = object["userID"]
            else { return "" }
            return id
        }
        #expect(ids.count == 1_501)
        #expect(ids.first == "A")
        #expect(ids == ids.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) })

        let after = try Remindctl.run(["export", "--after", "u-998"], socket: daemon.socketPath)
        #expect(after.status == 0)
        #expect(after.standardOutput.split(separator: "\n").count == 1)  // u-999
    }

    /// A bad `--after` is a usage error naming the flag; no daemon is a 3.
    @Test func exportRefusesBadArgumentsAndMissingDaemon() throws {
        let bad = try Remindctl.run(["export", "--after", "a/b"], socket: "/nonexistent.sock")
        #expect(bad.status == 2)
        #expect(bad.standardError.contains("--after"))
        let missing = try Remindctl.run(["export"], socket: "/nonexistent.sock")
        #expect(missing.status == 3)
        #expect(missing.standardOutput == "")
    }
}
