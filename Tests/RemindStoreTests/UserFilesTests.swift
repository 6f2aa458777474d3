import Foundation
import RemindCore
import RemindTesting
import Testing

@testable import RemindStore

/// How the checkpoint writes user files: a new user's file is renamed into its shard, made
/// once; a known user's is swapped with the new version, whose old inode the pool keeps.
@Suite(.ownThread)
struct UserFilesTests {
    func record(_ name: String, revision: Int) -> UserRecord {
        var record = UserRecord(userID: Fixtures.userID(name), lastReportAt: Fixtures.date("2026-11-15T10:00:00Z"))
        record.revision = revision
        return record
    }

    @Test func shardsAreMadeOnceAndKnownAfterARestart() throws {
        let fixture = try StoreFixture()
        let files = UserFiles(directory: fixture.directory)
        _ = try files.prepare()
        let users = (0..<50).map { record("shard-\($0)", revision: 1) }
        #expect(users.allSatisfy { !files.shards.contains($0.userID.shardIndex) })
        try files.writeAll(users.map { ($0.userID, $0.jsonBytes, true) })
        #expect(users.allSatisfy { files.shards.contains($0.userID.shardIndex) })
        for user in users {
            let bytes = try #require(FileManager.default.contents(atPath: files.path(for: user.userID)))
            #expect(Array(bytes) == user.jsonBytes)
        }
        // A new process finds them from the directory.
        let reopened = UserFiles(directory: fixture.directory)
        _ = try reopened.prepare()
        #expect(users.allSatisfy { reopened.shards.contains($0.userID.shardIndex) })
    }

    /// A known user's new version is exchanged with the file: the pool slot then holds the
    /// previous version (to be overwritten next time), and no file is torn or lost.
    @Test func aKnownUsersFileIsSwappedWithThePool() throws {
        let fixture = try StoreFixture()
        let files = UserFiles(directory: fixture.directory)
        _ = try files.prepare()
        let first = record("swap", revision: 1)
        try files.writeAll([(first.userID, first.jsonBytes, true)])
        let second = record("swap", revision: 2)
        try files.writeAll([(second.userID, second.jsonBytes, false)])
        #expect(
            FileManager.default.contents(atPath: files.path(for: second.userID)).map(Array.init) == second.jsonBytes)
        #expect(
            FileManager.default.contents(atPath: files.temporaryDirectory + "/0.json.tmp").map(Array.init)
                == first.jsonBytes)
    }

    /// A shard removed behind the daemon's back (or a user whose file went while the daemon
    /// thought it had one) is made again, and the file written.
    @Test func aShardRemovedBehindTheDaemonsBackIsMadeAgain() throws {
        let fixture = try StoreFixture()
        let files = UserFiles(directory: fixture.directory)
        _ = try files.prepare()
        let user = record("gone", revision: 1)
        try files.writeAll([(user.userID, user.jsonBytes, true)])
        let path = files.path(for: user.userID)
        let shard = String(path[..<path.lastIndex(of: "/")!])
        try FileManager.default.removeItem(atPath: shard)
        let again = record("gone", revision: 2)
        try files.writeAll([(again.userID, again.jsonBytes, false)])
        #expect(FileManager.default.contents(atPath: path).map(Array.init) == again.jsonBytes)
        try FileManager.default.removeItem(atPath: shard)
        let other = UserRecord(userID: user.userID, lastReportAt: user.lastReportAt)
        try files.writeAll([(other.userID, other.jsonBytes, true)])
        #expect(FileManager.default.contents(atPath: path).map(Array.init) == other.jsonBytes)
    }
}
