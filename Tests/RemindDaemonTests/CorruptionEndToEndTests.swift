import Foundation
import RemindCore
import RemindTesting
import Systemd
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// What a crashed run, a bad disk or a careless operator leaves in the state directory, met by
/// the real binary with a real journald: each bad file is quarantined or cleared with a
/// journal entry, and every other user keeps working.
@Suite(.ownThread, .serialized, .filesBackendOnly)
struct CorruptionEndToEndTests {
    /// The file of `user` in `stateDirectory`.
    static func userFile(_ stateDirectory: String, _ user: String) throws -> String {
        let enumerator = FileManager.default.enumerator(atPath: stateDirectory + "/users")
        while let path = enumerator?.nextObject() as? String {
            if path.hasSuffix("/\(user).json") { return stateDirectory + "/users/" + path }
        }
        throw POSIXError(.ENOENT)
    }

    @Test func badFilesAreQuarantinedAndLeftoversCleared() async throws {
        try await JournaldFixture.withJournald { journald in
            let tag = UUID().uuidString.prefix(8)
            let daemon = try DaemonProcess()
            try daemon.start()
            let damaged = ["truncated", "empty", "garbage", "schema"].map { "\($0)-\(tag)" }
            for user in ["good-\(tag)"] + damaged {
                #expect(try daemon.post(user, #"{"location":"whileInUse"}"#).status == 200)
            }
            daemon.stop()

            let valid = try Data(contentsOf: URL(fileURLWithPath: try Self.userFile(daemon.stateDirectory, damaged[0])))
            let contents: [Data] = [
                valid.prefix(valid.count / 2), Data(),
                Data((0..<512).map { _ in UInt8.random(in: 0...255) }),
                Data(#"{"schemaVersion":99,"userID":"someone-else","episodes":"not a list"}"#.utf8),
            ]
            for (user, bytes) in zip(damaged, contents) {
                try bytes.write(to: URL(fileURLWithPath: try Self.userFile(daemon.stateDirectory, user)))
            }
            // A checkpoint's temp file cut off by the crash, and the lock file of a dead run.
            try Data(valid.prefix(17)).write(
                to: URL(fileURLWithPath: daemon.stateDirectory + "/tmp/ab-torn-\(tag).json.tmp"))
            try Data("999999\n".utf8).write(to: URL(fileURLWithPath: daemon.stateDirectory + "/lock"))
            // Without the snapshot, start-up reads every file and meets each bad one.
            try FileManager.default.removeItem(atPath: daemon.stateDirectory + "/snapshot.tsv")
            try daemon.start()

            #expect(try daemon.client.send("GET", "/v1/users/good-\(tag)").status == 200)
            #expect(try daemon.post("good-\(tag)", #"{"location":"always"}"#).status == 200)
            for user in damaged {
                #expect(try daemon.client.send("GET", "/v1/users/\(user)").status == 404, "\(user)")
                // The user starts afresh with the next report.
                #expect(try daemon.post(user, #"{"location":"denied"}"#).status == 200, "\(user)")
            }
            let quarantined = try FileManager.default.contentsOfDirectory(atPath: daemon.stateDirectory + "/quarantine")
            #expect(
                Set(damaged.map { "\($0).json" }) == Set(quarantined.map { String($0.prefix { $0 != "." }) + ".json" }))
            // The torn file is gone; a checkpoint of the reports above may have files of its own there.
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: daemon.stateDirectory + "/tmp")
            #expect(!leftovers.contains("ab-torn-\(tag).json.tmp"), "\(leftovers)")
            for user in damaged {
                let entry = try journald.entry(
                    matching: ["MESSAGE_ID": MessageID.fileQuarantined.rawValue], timeout: .seconds(60)
                ) { $0["MESSAGE"]?.contains("\(user).json") == true }
                #expect(entry["SYSLOG_IDENTIFIER"] == "remindd")
                #expect(entry["PRIORITY"] == "3")
            }
            let cleared = try journald.entry(matching: ["SYSLOG_IDENTIFIER": "remindd"], timeout: .seconds(60)) {
                $0["MESSAGE"]?.contains("temp file(s) left by an interrupted write") == true
            }
            #expect(cleared["MESSAGE"]?.contains("removed 1 ") == true)
            #expect(try daemon.client.send("GET", "/v1/status").text.contains(#""quarantined":4"#))
            print(
                "corruption: \(damaged.count) damaged user files quarantined, 1 torn temp file cleared, stale lock taken over, 1 healthy user unaffected"
            )
            daemon.stop()
        }
    }
}

/// A damaged snapshot, met by the real binary with a real journald: start-up says which file
/// and what it did instead, keeps the file in quarantine, and loses nothing.
@Suite(.ownThread, .serialized, .filesBackendOnly)
struct DamagedSnapshotEndToEndTests {
    @Test func damagedSnapshotIsQuarantinedAndReported() async throws {
        try await JournaldFixture.withJournald { journald in
            let tag = UUID().uuidString.prefix(8)
            let daemon = try DaemonProcess()
            try daemon.start()
            let users = (0..<40).map { "snap-\(tag)-\($0)" }
            for user in users {
                #expect(try daemon.post(user, #"{"location":"whileInUse"}"#).status == 200)
            }
            daemon.stop()
            // 48 bytes overwritten in the middle of the file: still a well-formed file by length.
            let path = daemon.stateDirectory + "/snapshot.tsv"
            let handle = try #require(FileHandle(forUpdatingAtPath: path))
            let size = handle.seekToEndOfFile()
            handle.seek(toFileOffset: size / 2)
            handle.write(Data(repeating: UInt8(ascii: "x"), count: 48))
            try handle.close()
            try daemon.start()

            let entry = try journald.entry(
                matching: ["MESSAGE_ID": MessageID.stateFileDamaged.rawValue], timeout: .seconds(60)
            ) { $0["MESSAGE"]?.contains(path) == true }
            #expect(entry["PRIORITY"] == "3")
            #expect(entry["MESSAGE"]?.contains("checksum mismatch") == true)
            #expect(entry["MESSAGE"]?.contains("read every user file instead") == true)
            let quarantined = try FileManager.default.contentsOfDirectory(atPath: daemon.stateDirectory + "/quarantine")
            #expect(quarantined.map { String($0.prefix { $0 != "." }) } == ["snapshot"])
            #expect(try daemon.client.send("GET", "/v1/status").text.contains(#""quarantined":1"#))
            for user in users {
                #expect(try daemon.client.send("GET", "/v1/users/\(user)").status == 200, "\(user)")
            }
            #expect(try daemon.client.send("GET", "/v1/status").text.contains(#""users":40"#))
            daemon.stop()
        }
    }
}
