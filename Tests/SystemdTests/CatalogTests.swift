import Foundation
import RemindTesting
import Systemd
import Testing

/// `systemd/remindd.catalog` as journald's own tools read it.
@Suite(.ownThread)
struct CatalogTests {
    static let catalog = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("systemd/remindd.catalog")

    /// The catalog compiles with `journalctl --update-catalog` and has one entry per message ID, defined by remindd.
    ///
    /// It is installed into a scratch root (`--root`), where `--update-catalog` reads
    /// `usr/lib/systemd/catalog/*.catalog` and fails on any malformed entry, and `--list-catalog` lists
    /// `<id> <Defined-By>: <Subject>` per entry.
    @Test func catalogListsEveryMessageIDWhenCompiled() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("systemd-tests-\(UUID())")
        defer { try? FileManager.default.removeItem(at: root) }
        let catalogs = root.appendingPathComponent("usr/lib/systemd/catalog")
        try FileManager.default.createDirectory(at: catalogs, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: Self.catalog, to: catalogs.appendingPathComponent("remindd.catalog"))

        let update = try JournaldFixture.journalctl(["--root=\(root.path)", "--update-catalog"])
        #expect(update.status == 0)
        #expect(update.standardError == "")

        let list = try JournaldFixture.journalctl(["--root=\(root.path)", "--list-catalog"])
        #expect(list.status == 0)
        var subjects: [String: String] = [:]
        for line in list.standardOutput.split(separator: "\n") {
            let parts = line.split(separator: " ", maxSplits: 1).map(String.init)
            subjects[parts[0]] = parts.count > 1 ? parts[1] : ""
        }
        #expect(Set(subjects.keys) == Set(MessageID.allCases.map(\.rawValue)))
        for (id, subject) in subjects {
            #expect(subject.hasPrefix("remindd: ") && subject.count > "remindd: ".count, "\(id): \(subject)")
        }
    }
}
