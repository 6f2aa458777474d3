import Foundation
import RemindAPI
import RemindCore
import RemindStore
import RemindTesting
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A state directory of the test's own, and stores opened on it.
final class StoreFixture: Sendable {
    let directory: String
    private let noticeBox = NoticeBox()
    var notices: [StoreNotice] { noticeBox.notices.withLock { $0 } }

    final class NoticeBox: Sendable {
        let notices = Mutex<[StoreNotice]>([])
    }

    init() throws {
        var template = Array("/tmp/remindd-store-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw POSIXError(.EIO) }
        directory = String(cString: made)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: directory)
    }

    func open(
        _ directory: String? = nil, policy: ReminderPolicy = ReminderPolicy(), sinks: [String] = ["file"],
        now: Date = Fixtures.date("2026-11-15T10:00:00Z")
    ) throws -> FileStateStore {
        try FileStateStore(
            options: .init(directory: directory ?? self.directory, sinks: sinks),
            policy: policy, now: now,
            notice: { [noticeBox] notice in noticeBox.notices.withLock { $0.append(notice) } })
    }

    /// The state directory divided into `parts` (`storage.parts`).
    func open(
        _ directory: String? = nil, parts: Int, policy: ReminderPolicy = ReminderPolicy(), sinks: [String] = ["file"],
        now: Date = Fixtures.date("2026-11-15T10:00:00Z")
    ) throws -> any StateStore {
        guard parts > 1 else { return try open(directory, policy: policy, sinks: sinks, now: now) }
        let directory = directory ?? self.directory
        return try PartitionedStateStore(
            options: .init(directory: directory, parts: parts, part: .init(directory: directory, sinks: sinks)),
            policy: policy, now: now,
            notice: { [noticeBox] notice in noticeBox.notices.withLock { $0.append(notice) } })
    }

    /// A copy of the state directory as it is on disk now: what a `kill -9` at this moment
    /// leaves for the next start (the page cache survives a process crash).
    func crashCopy() throws -> String {
        let copy = directory + "-crash-\(UUID().uuidString.prefix(8))"
        let status = try SpawnedProcess.run("/bin/cp", ["-a", directory, copy]).status
        precondition(status == 0, "cp failed")
        return copy
    }
}
