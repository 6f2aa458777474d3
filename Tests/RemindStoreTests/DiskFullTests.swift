import Foundation
import RemindCore
import RemindStore
import RemindTesting
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The state directory on a small tmpfs that the test mounts and unmounts itself.
@Suite(.ownThread, .serialized)
struct DiskFullTests {
    /// With the disk full a report fails with a disk-full error and changes nothing; once
    /// space returns the store accepts reports again without a restart. The same for a state
    /// directory in two parts (`storage.parts`): the part's error reaches the caller as is.
    @Test(arguments: [1, 2]) func fullDiskRefusesThenRecovers(parts: Int) async throws {
        guard getuid() == 0 else {
            Issue.record("mounting a tmpfs needs root")
            return
        }
        let fixture = try StoreFixture()
        let mountPoint = fixture.directory + "/mnt"
        try FileManager.default.createDirectory(atPath: mountPoint, withIntermediateDirectories: true)
        guard try SpawnedProcess.run("/bin/mount", ["-t", "tmpfs", "-o", "size=512k", "tmpfs", mountPoint]).status == 0
        else {
            Issue.record("cannot mount a tmpfs here")
            return
        }
        defer { _ = try? SpawnedProcess.run("/bin/umount", ["-l", mountPoint]) }
        let store = try fixture.open(mountPoint + "/state", parts: parts)
        let start = Fixtures.date("2026-11-15T10:00:00Z")
        let kept = Fixtures.userID("kept")
        _ = try await store.storeReport(
            PermissionReport(location: .whileInUse, observedAt: start), for: kept, receivedAt: start)
        let before = try await store.record(kept)

        // Fill the file system.
        let filler = mountPoint + "/filler"
        let fd = open(filler, O_WRONLY | O_CREAT, 0o600)
        let block = [UInt8](repeating: 0xAB, count: 4096)
        while block.withUnsafeBytes({ write(fd, $0.baseAddress, $0.count) }) > 0 {}
        close(fd)

        // The log's last page may still have room for a few entries; after that every change
        // is refused, and a refused one changes nothing.
        var refused = 0
        var current = before
        for index in 0..<40 {
            let at = start.addingTimeInterval(Double(index + 1))
            do {
                // Always a change: an identical report needs no write and is accepted.
                let location: LocationAuthorization = current?.permissions?.location == .always ? .denied : .always
                _ = try await store.storeReport(
                    PermissionReport(location: location, observedAt: at), for: kept, receivedAt: at)
                current = try await store.record(kept)
                #expect(refused == 0, "a report was accepted after one was refused")
            } catch let error as StoreError {
                #expect(error.isDiskFull)
                refused += 1
                #expect(try await store.record(kept) == current)
            }
        }
        #expect(refused >= 30)

        // A batch is refused whole: none of its users, new or known, changes.
        let batchAt = start.addingTimeInterval(50)
        let location: LocationAuthorization = current?.permissions?.location == .always ? .denied : .always
        await #expect(throws: StoreError.self) {
            try await store.storeReports(
                [
                    (PermissionReport(location: .whileInUse, observedAt: batchAt), Fixtures.userID("new-1")),
                    (PermissionReport(location: location, observedAt: batchAt), kept),
                    (PermissionReport(location: .denied, observedAt: batchAt), Fixtures.userID("new-2")),
                ], receivedAt: batchAt)
        }
        #expect(try await store.record(kept) == current)
        #expect(try await store.record(Fixtures.userID("new-1")) == nil)
        #expect(try await store.record(Fixtures.userID("new-2")) == nil)

        unlink(filler)
        let later = start.addingTimeInterval(100)
        let outcome = try await store.storeReport(
            PermissionReport(location: .always, observedAt: later), for: kept, receivedAt: later
        ).outcome
        #expect(outcome.record.permissions?.location == .always)
        await store.close()
        let reopened = try fixture.open(mountPoint + "/state", parts: parts)
        #expect(try await reopened.record(kept)?.permissions?.location == .always)
        await reopened.close()
    }
}
