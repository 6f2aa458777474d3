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
        let daemon = try RunningDaemon(configuration: #"{"sinks":[{"type":"file","path":"/dev/null"}]}"#)
        for n in 0..<50 { try daemon.report("u-\(n)", #"{"location":"whileInUse"}"#) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: BuildProducts.path(of: "remindctl"))
        process.arguments = ["--socket", daemon.socketPath, "pending"]
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        // The reader is gone before the first line is written.
        try output.fileHandleForReading.close()
        try process.run()
        let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationReason == .uncaughtSignal)
        #expect(process.terminationStatus == SIGPIPE)
        #expect(stderr.isEmpty, "\(stderr)")
    }
}
