import Foundation
import RemindTesting
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Output into a pipe whose reader has gone (`remindctl … | head`).
@Suite(.ownThread)
struct ClosedPipeTests {
    /// The command ends as one killed by SIGPIPE does: silently, no crash report.
    @Test func readerGoneEndsQuietlyLikeSIGPIPE() throws {
        let daemon = try DaemonProcess.started(configuration: #"{"sinks":[{"type":"file","path":"/dev/null"}]}"#)
        for n in 0..<50 { try daemon.report("u-\(n)", #"{"location":"whileInUse"}"#) }
        var pipeEnds: [Int32] = [0, 0]
        #expect(pipe(&pipeEnds) == 0)
        // The reader is gone before the first line is written.
        close(pipeEnds[0])
        defer { close(pipeEnds[1]) }
        let result = try Remindctl.run(["pending"], socket: daemon.socketPath, standardOutput: pipeEnds[1])
        // Killed by the signal: 128 + its number (remindctl's own exit codes are below 128).
        #expect(result.status == 128 + SIGPIPE)
        let stderr = result.standardError
        #expect(stderr.isEmpty, "\(stderr)")
    }
}
