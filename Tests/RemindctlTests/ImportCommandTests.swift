import Foundation
import RemindCore
import RemindTesting
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `remindctl import`: the file's lines sent in batches, the refused ones listed with their
/// line numbers in the file, the exit code saying whether everything was stored.
@Suite(.ownThread)
struct ImportCommandTests {
    /// Writes `text` to a file of the daemon's directory and returns its path.
    static func file(_ daemon: DaemonProcess, _ text: String) throws -> String {
        let path = daemon.directory + "/reports-\(UUID().uuidString.prefix(8)).ndjson"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// Every line stored across several batches, a user's lines in the file's order; exit 0.
    /// The last line needs no newline: the file ended, so the line is whole.
    @Test func storesEveryLineInBatches() throws {
        let daemon = try DaemonProcess.started()
        var lines: [String] = []
        for index in 0..<25 { lines.append(#"{"userID":"i-\#(index % 5)","location":"whileInUse"}"#) }
        lines.append(#"{"userID":"i-0","location":"always"}"#)
        let path = try Self.file(daemon, lines.joined(separator: "\n"))
        let result = try Remindctl.run(["import", "--batch", "7", path], socket: daemon.socketPath)
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput == "Stored 26 of 26 reports.\n")
        #expect(result.standardError == "", "no progress bar without a terminal")
        #expect(try daemon.get("/v1/users/i-0").contains(#""location":"always""#))
        #expect(try daemon.get("/v1/users/i-0").contains(#""reportCount":6"#))
        #expect(try daemon.get("/v1/users/i-4").contains(#""reportCount":5"#))
    }

    /// Refused lines are listed with their line numbers in the file (blank lines counted) and
    /// the daemon's reasons; the others are stored; exit 1. `--json` gives the summary object.
    @Test func listsRefusedLinesWithTheirNumbers() throws {
        let daemon = try DaemonProcess.started()
        let text = """
            {"userID":"ok-1","location":"whileInUse"}

            {"userID":"bad 1","location":"always"}
            {"userID":"ok-2","location":"sometimes"}
            {"userID":"ok-3","location":"always"}

            """
        let path = try Self.file(daemon, text)
        let result = try Remindctl.run(["import", "--batch", "2", path], socket: daemon.socketPath)
        #expect(result.status == 1)
        #expect(result.standardOutput.hasPrefix("Stored 2 of 4 reports; 2 refused:\n"))
        #expect(result.standardOutput.contains("\n  line 3 (bad 1): userID must be 1–128 characters"))
        #expect(result.standardOutput.contains("\n  line 4 (ok-2): location must be one of"))
        #expect(try daemon.client.send("GET", "/v1/users/ok-3").status == 200)
        #expect(try daemon.client.send("GET", "/v1/users/ok-2").status == 404)

        let json = try Remindctl.run(["--json", "import", "-"], socket: daemon.socketPath, input: text)
        #expect(json.status == 1)
        let summary = try JSONParser.parse(json.standardOutput)
        guard case .object(let object) = summary, case .array(let refused)? = object["refused"] else {
            Issue.record("not a summary: \(json.standardOutput)")
            return
        }
        #expect(object["accepted"] == .int(2))
        #expect(refused.count == 2)
        guard case .object(let first) = refused[0] else { return }
        #expect(first["line"] == .int(3))
        #expect(first["userID"] == .string("bad 1"))
        #expect(Set(first.keys) == ["line", "userID", "detail"])
    }

    /// On a terminal, standard error shows the progress (lines and lines/s), the last figures
    /// left standing at the end.
    @Test func showsProgressOnATerminal() throws {
        let daemon = try DaemonProcess.started()
        let lines = (0..<300).map { #"{"userID":"p-\#($0)","location":"always"}"# }
        let path = try Self.file(daemon, lines.joined(separator: "\n") + "\n")
        let terminal = try PseudoTerminal()
        let result = try Remindctl.run(
            ["import", "--batch", "100", path], socket: daemon.socketPath, standardError: terminal.secondary)
        #expect(result.status == 0)
        let progress = terminal.output()
        #expect(progress.contains("300 lines"), "\(progress)")
        #expect(progress.contains("lines/s"))
        #expect(progress.contains("%"))
    }

    /// Nobody on the socket: exit 3 naming the socket; a missing file: exit 1 naming it.
    @Test func unreachableDaemonExits3() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("import-\(UUID())").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/r.ndjson"
        try #"{"userID":"u","location":"always"}"#.write(toFile: path, atomically: true, encoding: .utf8)
        let result = try Remindctl.run(["import", path], socket: directory + "/none.sock")
        #expect(result.status == 3)
        #expect(result.standardError.contains(directory + "/none.sock"))
        let missing = try Remindctl.run(["import", directory + "/nope.ndjson"], socket: directory + "/none.sock")
        #expect(missing.status == 1)
        #expect(missing.standardError.contains("nope.ndjson"))
        let usage = try Remindctl.run(["import", "--batch", "0", path], socket: directory + "/none.sock")
        #expect(usage.status == 2)
    }
}
