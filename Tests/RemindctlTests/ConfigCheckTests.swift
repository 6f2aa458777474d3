import Foundation
import RemindTesting
import Testing

/// `config check FILE`: the daemon's validation, offline, exit 78 on an invalid file.
@Suite(.ownThread)
struct ConfigCheckTests {
    static func withFile(_ contents: String, _ body: (String) throws -> Void) throws {
        let directory = try BuildProducts.temporaryDirectory("remindctl-config")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/remindd.json"
        try contents.write(toFile: path, atomically: true, encoding: .utf8)
        try body(path)
    }

    /// A valid file is reported valid with its state directory, socket and sinks; no daemon
    /// is needed.
    @Test func validFileIsReportedValid() throws {
        let configuration = """
            {"stateDirectory":"/srv/remindd","listen":{"socket":"/run/r/r.sock"},
             "sinks":[{"type":"journal"},{"type":"file","name":"audit","path":"/var/log/remindd.jsonl"}]}
            """
        try Self.withFile(configuration) { path in
            let result = try Remindctl.run(["config", "check", path], socket: "/nonexistent/r.sock")
            #expect(result.status == 0)
            #expect(
                result.standardOutput == """
                    \(path): valid
                    state directory  /srv/remindd
                    socket           /run/r/r.sock
                    sinks            journal (journal), audit (file)

                    """)
            let json = try Remindctl.run(["--json", "config", "check", path])
            #expect(json.status == 0)
            #expect(json.standardOutput.hasPrefix(#"{"notification":{"showRecurringNotification":false,"#))
            #expect(json.standardOutput.contains(#""stateDirectory":"/srv/remindd""#))
        }
    }

    /// A fallback sink is shown as one, and what it gets is said: with no push sink,
    /// everything; a push sink as a fallback is exit 78 naming the key path.
    @Test func fallbackSinksAreExplained() throws {
        let configuration =
            #"{"sinks":[{"type":"journal"},{"type":"file","name":"mail","role":"fallback","path":"/var/log/mail.jsonl"}]}"#
        try Self.withFile(configuration) { path in
            let result = try Remindctl.run(["config", "check", path], socket: "/nonexistent/r.sock")
            #expect(result.status == 0)
            #expect(result.standardOutput.contains("sinks            journal (journal), mail (file, fallback)"))
            #expect(
                result.standardOutput.contains(
                    "fallback         no push sink (apns, fcm) is configured: every reminder goes to the fallback sinks (noPushAddress)"
                ))
        }
        try Self.withFile(#"{"sinks":[{"type":"fcm","role":"fallback","serviceAccountFile":"/k.json"}]}"#) { path in
            let result = try Remindctl.run(["config", "check", path], socket: "/nonexistent/r.sock")
            #expect(result.status == 78)
            #expect(result.standardError.contains("sinks[0].role"))
        }
    }

    /// A PostgreSQL storage is checked as the daemon reads it: the URL in `urlFile` is read
    /// and shown without its password; a missing `urlFile` is exit 78 naming the key path.
    @Test func postgresStorageIsCheckedWithItsURLFile() throws {
        let directory = try BuildProducts.temporaryDirectory("remindctl-storage")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let urlFile = directory + "/database-url"
        try "postgresql://app:hunter2@db.internal/remindd\n".write(toFile: urlFile, atomically: true, encoding: .utf8)
        try Self.withFile(#"{"storage":{"type":"postgres","urlFile":"\#(urlFile)"}}"#) { path in
            let result = try Remindctl.run(["config", "check", path], socket: "/nonexistent/r.sock")
            #expect(result.status == 0, "\(result.standardError)")
            #expect(result.standardOutput.contains("storage  postgres postgresql://app:***@db.internal:5432/remindd"))
            #expect(!result.standardOutput.contains("hunter2"))
        }
        try Self.withFile(#"{"storage":{"type":"postgres","urlFile":"\#(urlFile).gone"}}"#) { path in
            let result = try Remindctl.run(["config", "check", path], socket: "/nonexistent/r.sock")
            #expect(result.status == 78)
            #expect(result.standardError.contains("storage.urlFile"))
        }
    }

    /// An invalid value is refused with exit 78 and the file, key path and reason.
    @Test func invalidValueExits78WithKeyPath() throws {
        try Self.withFile(#"{"sinks":[{"type":"file","path":"/tmp/x","retry":{"maxAttempts":0}}]}"#) { path in
            let result = try Remindctl.run(["config", "check", path])
            #expect(result.status == 78)
            #expect(result.standardError.hasPrefix("remindctl: \(path): sinks[0].retry.maxAttempts: "))
            #expect(result.standardOutput == "")
        }
    }

    /// Unknown keys, malformed JSON and a missing file are refused the same way.
    @Test func unknownKeyMalformedAndMissingFilesExit78() throws {
        try Self.withFile(#"{"schedule":{"quietHour":null}}"#) { path in
            let result = try Remindctl.run(["config", "check", path])
            #expect(result.status == 78)
            #expect(result.standardError.hasPrefix("remindctl: \(path): schedule.quietHour: is not a known key"))
        }
        try Self.withFile(#"{"history":"#) { path in
            let result = try Remindctl.run(["config", "check", path])
            #expect(result.status == 78)
            #expect(result.standardError.contains("invalid JSON"))
        }
        let missing = try Remindctl.run(["config", "check", "/nonexistent/remindd.json"])
        #expect(missing.status == 78)
        #expect(missing.standardError.contains("/nonexistent/remindd.json"))
    }

    /// `remindFor` with `notificationsTurnedOff`, or a bad service, is refused with exit 78 and
    /// the key path.
    @Test func badRemindForAndServicesExit78() throws {
        try Self.withFile(#"{"notification":{"remindFor":["notificationsTurnedOff"]}}"#) { path in
            let result = try Remindctl.run(["config", "check", path])
            #expect(result.status == 78)
            #expect(result.standardError.hasPrefix("remindctl: \(path): notification.remindFor[0]: "))
        }
        try Self.withFile(#"{"services":{"driving":{"requires":["gps"]}}}"#) { path in
            let result = try Remindctl.run(["config", "check", path])
            #expect(result.status == 78)
            #expect(result.standardError.hasPrefix("remindctl: \(path): services.driving.requires[0]: "))
        }
    }

    /// In-app copy on an unknown platform, an unknown copy key in a platform's set, and an
    /// `inApp` value out of range are refused with exit 78 and the key path.
    @Test func badInAppCopyExits78() throws {
        let cases = [
            (#"{"notification":{"platforms":{"windows":{"inAppTitle":"x"}}}}"#, "notification.platforms.windows"),
            (#"{"notification":{"platforms":{"ios":{"inAppTitel":"x"}}}}"#, "notification.platforms.ios.inAppTitel"),
            (#"{"inApp":{"maxPerEpisode":0}}"#, "inApp.maxPerEpisode"),
        ]
        for (contents, field) in cases {
            try Self.withFile(contents) { path in
                let result = try Remindctl.run(["config", "check", path])
                #expect(result.status == 78)
                #expect(result.standardError.hasPrefix("remindctl: \(path): \(field): "), "\(result.standardError)")
            }
        }
    }
}
