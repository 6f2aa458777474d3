import Foundation
import RemindClient
import RemindTesting
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `make install`'s script, run into a temp DESTDIR, and the installed binary run with the
/// toolchain's libraries out of the loader's reach.
@Suite(.ownThread, .serialized)
struct InstallTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    static func install(into destination: String) throws -> SpawnedProcess.Result {
        let build = URL(fileURLWithPath: DaemonProcess.binaryPath).deletingLastPathComponent().path
        return try SpawnedProcess.run(
            "/usr/bin/env", ["PREFIX=/usr/local", "DESTDIR=\(destination)", root + "/scripts/install.sh", build])
    }

    /// Everything lands where Debian expects it, binaries stripped, runtime libraries beside.
    @Test func installsEverythingWhereDebianExpectsIt() throws {
        let destination = NSTemporaryDirectory() + "remindd-install-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: destination) }
        let result = try Self.install(into: destination)
        #expect(result.status == 0, "\(result.standardError)")
        let prefix = destination + "/usr/local"
        for path in [
            "/bin/remindd", "/lib/systemd/system/remindd.service", "/lib/systemd/system/remindd.socket",
            "/lib/sysusers.d/remindd.conf", "/lib/systemd/catalog/remindd.catalog", "/lib/remindd/libswiftCore.so",
            "/lib/remindd/libFoundationEssentials.so",
        ] {
            #expect(FileManager.default.fileExists(atPath: prefix + path), "missing \(path)")
        }
        #expect(FileManager.default.fileExists(atPath: destination + "/etc/remindd/remindd.json"))
        let symbols = try SpawnedProcess.run("/usr/bin/nm", [prefix + "/bin/remindd"])
        #expect(symbols.standardError.contains("no symbols"), "remindd is not stripped")
        let uninstall = try SpawnedProcess.run(
            "/usr/bin/env",
            ["PREFIX=/usr/local", "DESTDIR=\(destination)", Self.root + "/scripts/install.sh", "--uninstall"])
        #expect(uninstall.status == 0)
        #expect(!FileManager.default.fileExists(atPath: prefix + "/bin/remindd"))
        #expect(!FileManager.default.fileExists(atPath: prefix + "/lib/remindd"))
    }

    /// The installed daemon runs with /opt/swift hidden (a tmpfs mounted over it in a private
    /// mount namespace) and still knows IANA time zones, which quiet hours depend on.
    @Test func installedBinaryRunsWithoutTheToolchain() throws {
        guard getuid() == 0 else {
            Issue.record("hiding the toolchain needs a mount namespace, which needs root")
            return
        }
        let daemon = try DaemonProcess()
        let result = try Self.install(into: daemon.directory + "/root")
        #expect(result.status == 0, "\(result.standardError)")
        let hide = "mount -t tmpfs tmpfs /opt/swift && exec \"$0\" \"$@\""
        // The control: the binary as built needs the toolchain, and fails without it.
        let control = try SpawnedProcess.run(
            "/usr/bin/unshare",
            ["--mount", "--propagation", "private", "/bin/sh", "-c", hide, DaemonProcess.binaryPath, "--version"])
        #expect(control.status != 0)
        #expect(control.standardError.contains("error while loading shared libraries"))
        try daemon.start(
            launcher: ["/usr/bin/unshare", "--mount", "--propagation", "private", "/bin/sh", "-c", hide],
            binary: daemon.directory + "/root/usr/local/bin/remindd")
        let reply = try daemon.post("tz", #"{"location":"whileInUse","timeZone":"Europe/Berlin"}"#)
        #expect(reply.status == 200, "\(reply.text)")
        #expect(reply.text.contains(#""timeZone":"Europe/Berlin""#))
        #expect(daemon.stop() == 0)
    }
}
