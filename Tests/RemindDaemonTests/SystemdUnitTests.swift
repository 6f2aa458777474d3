import Foundation
import RemindTesting
import Testing

/// The units in `systemd/`, checked with systemd's own tools.
@Suite(.ownThread)
struct SystemdUnitTests {
    static let unitsDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("systemd").path

    /// A copy of the units whose ExecStart names the binary just built, so that `verify` can
    /// check it exists and runs.
    static func unitCopy() throws -> String {
        let directory = NSTemporaryDirectory() + "remindd-units-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        for name in ["remindd.service", "remindd.socket"] {
            var text = try String(contentsOfFile: unitsDirectory + "/" + name, encoding: .utf8)
            text = text.replacingOccurrences(
                of: "ExecStart=/usr/local/bin/remindd", with: "ExecStart=\(DaemonProcess.binaryPath)")
            try text.write(toFile: directory + "/" + name, atomically: true, encoding: .utf8)
        }
        return directory
    }

    /// `systemd-analyze verify` finds nothing wrong with the service and the socket.
    @Test func unitsVerify() throws {
        let directory = try Self.unitCopy()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let result = try SpawnedProcess.run(
            "/usr/bin/systemd-analyze", ["verify", directory + "/remindd.service", directory + "/remindd.socket"])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardError.isEmpty, "\(result.standardError)")
    }

    /// The service is hardened: `systemd-analyze security --offline=true` rates it 2.0 or
    /// lower ("OK").
    @Test func serviceExposureIsAtMostTwo() throws {
        let directory = try Self.unitCopy()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let result = try SpawnedProcess.run(
            "/usr/bin/systemd-analyze",
            ["security", "--offline=true", "--no-pager", directory + "/remindd.service"])
        let line = try #require(
            result.standardOutput.split(separator: "\n").first { $0.contains("Overall exposure level") })
        // "→ Overall exposure level for remindd.service: 1.2 OK :-)"
        let match = try #require(line.firstMatch(of: /: ([0-9]+\.[0-9]+)\s/))
        let score = try #require(Double(match.output.1))
        #expect(score <= 2.0, "\(line)")
    }

    /// The service runs as the user the sysusers entry creates, and the socket gives that
    /// group write access with mode 0660.
    @Test func serviceSocketAndSysusersAgree() throws {
        let service = try String(contentsOfFile: Self.unitsDirectory + "/remindd.service", encoding: .utf8)
        let socket = try String(contentsOfFile: Self.unitsDirectory + "/remindd.socket", encoding: .utf8)
        for line in [
            "Type=notify", "User=remindd", "Group=remindd", "StateDirectory=remindd", "WatchdogSec=30",
            "ExecReload=/bin/kill -HUP $MAINPID", "Restart=on-failure", "RuntimeDirectory=remindd",
            "ConfigurationDirectory=remindd",
        ] {
            #expect(service.contains(line + "\n"), "remindd.service lacks \(line)")
        }
        for line in ["SocketGroup=remindd", "SocketMode=0660", "ListenStream=/run/remindd/remindd.sock"] {
            #expect(socket.contains(line + "\n"), "remindd.socket lacks \(line)")
        }
        let root = NSTemporaryDirectory() + "remindd-sysusers-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: root + "/etc", withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: root) }
        for file in ["passwd", "group"] { FileManager.default.createFile(atPath: root + "/etc/" + file, contents: nil) }
        let result = try SpawnedProcess.run(
            "/usr/bin/systemd-sysusers", ["--dry-run", "--root=" + root, Self.unitsDirectory + "/remindd.sysusers"])
        #expect(result.status == 0, "\(result.standardError)")
        #expect((result.standardOutput + result.standardError).contains("Creating user 'remindd'"))
    }
}
