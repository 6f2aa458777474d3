import Foundation
import RemindClient
import RemindCore
import RemindTesting
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The real binary with its state directory on a 2 MiB tmpfs that the test mounts, fills,
/// empties and unmounts: refused reports get 503, reads go on, nothing stored is damaged, and
/// the daemon takes reports again once there is room, without a restart.
@Suite(.ownThread, .serialized, .filesBackendOnly)
struct DiskFullEndToEndTests {
    @Test func fullDiskRefusesReportsThenRecoversWithoutRestart() async throws {
        guard geteuid() == 0 else {
            Issue.record("mounting a tmpfs needs root")
            return
        }
        let daemon = try DaemonProcess()
        try FileManager.default.createDirectory(atPath: daemon.stateDirectory, withIntermediateDirectories: true)
        let mounted = try SpawnedProcess.run(
            "/bin/mount", ["-t", "tmpfs", "-o", "size=2m", "tmpfs", daemon.stateDirectory])
        #expect(mounted.status == 0, "mount: \(mounted.standardError)")
        defer {
            daemon.stop(signal: SIGKILL)
            _ = try? SpawnedProcess.run("/bin/umount", ["-l", daemon.stateDirectory])
        }
        try daemon.start()
        let users = (0..<20).map { "disk-\($0)" }
        for user in users { #expect(try daemon.post(user, #"{"location":"whileInUse"}"#).status == 200) }
        let before = try users.map { try daemon.client.send("GET", "/v1/users/\($0)").text }

        let filler = daemon.stateDirectory + "/filler"
        let fd = open(filler, O_WRONLY | O_CREAT, 0o600)
        let block = [UInt8](repeating: 0xAB, count: 4096)
        while block.withUnsafeBytes({ write(fd, $0.baseAddress, $0.count) }) > 0 {}
        close(fd)

        // The journal's last page may take a few more entries; then every change is refused.
        var refused = 0
        var accepted: [String: String] = [:]
        for round in 0..<40 {
            let user = users[round % users.count]
            let location = round / users.count % 2 == 0 ? "always" : "denied"
            let reply = try daemon.post(user, #"{"location":"\#(location)"}"#)
            if reply.status == 200 {
                // A smaller entry may still fit where a refused larger one did not (a change
                // that closes an episode writes its outcome too): what matters is that each
                // accepted one is kept and each refused one changes nothing, checked below.
                accepted[user] = location
                continue
            }
            refused += 1
            #expect(reply.status == 503)
            #expect(reply.headers["content-type"] == "application/problem+json")
            #expect(reply.text.contains(#""status":503"#))
            #expect(reply.headers["retry-after"] != nil)
        }
        #expect(refused >= 30)
        // A bulk request is refused whole, like a single report.
        let bulk = users.map { #"{"userID":"\#($0)","location":"allowOnce"}"# + "\n" }.joined()
        let bulkReply = try daemon.client.send(
            "POST", "/v1/reports", body: Array(bulk.utf8), headers: ["Content-Type": "application/x-ndjson"])
        #expect(bulkReply.status == 503)
        #expect(bulkReply.headers["retry-after"] != nil)
        #expect(!(try daemon.client.send("GET", "/v1/users/\(users[0])").text.contains("allowOnce")))
        // Reads keep working and show exactly what was acknowledged.
        for (index, user) in users.enumerated() {
            let reply = try daemon.client.send("GET", "/v1/users/\(user)")
            #expect(reply.status == 200)
            if let location = accepted[user] {
                #expect(reply.text.contains(#""location":"\#(location)""#))
            } else {
                #expect(reply.text == before[index], "\(user) changed by a refused report")
            }
        }
        #expect(try daemon.client.send("GET", "/v1/status").status == 200)

        unlink(filler)
        #expect(try daemon.post(users[0], #"{"location":"allowOnce"}"#).status == 200)
        // The same process, and after a restart the change is still there.
        daemon.stop(signal: SIGKILL)
        try daemon.start()
        #expect(try daemon.client.send("GET", "/v1/users/\(users[0])").text.contains(#""location":"allowOnce""#))
        // Every report acknowledged while the disk was full survived the kill too.
        for (user, location) in accepted where user != users[0] {
            let reply = try daemon.client.send("GET", "/v1/users/\(user)")
            #expect(reply.text.contains(#""location":"\#(location)""#), "\(user) lost \(location)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: daemon.stateDirectory + "/quarantine").isEmpty)
        print(
            "disk-full: \(refused) of 40 reports refused with 503 while full, \(accepted.count) accepted before; reads intact; accepting again after space returned"
        )
    }
}
