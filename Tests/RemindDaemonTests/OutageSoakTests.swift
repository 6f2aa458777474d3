import Foundation
import RemindClient
import RemindCore
import RemindTesting
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `make soak` only (REMINDD_SOAK=1): a webhook receiver down for a minute, then answering
/// slower than the sink's timeout, then 5xx, while an exec sink hangs; the file sink delivers
/// throughout, nothing is lost, backoff shows in the metrics and memory stays flat.
@Suite(.ownThread, .serialized, .enabled(if: CrashUnderLoadTests.soak))
struct OutageSoakTests {
    /// The daemon's resident set, in KiB, from /proc.
    static func rss(_ pid: Int32) -> Int {
        let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") } ?? ""
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
    }

    @Test func webhookDownSlowAnd5xxWhileExecHangs() async throws {
        let probe = WebhookReceiver()
        let port = try await probe.serving { probe.boundPort }
        let directory = NSTemporaryDirectory() + "remindd-soak-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // Hangs while the flag file exists, then succeeds: the exec sink's own outage.
        let hangFlag = directory + "/hang"
        FileManager.default.createFile(atPath: hangFlag, contents: nil)
        let script = directory + "/deliver.sh"
        try
            "#!/bin/sh\nwhile [ -e \(hangFlag) ]; do sleep 1; done\ncat >>\(directory)/exec.jsonl\necho >>\(directory)/exec.jsonl\n"
            .write(
                toFile: script, atomically: true, encoding: .utf8)
        chmod(script, 0o755)
        let retry = #""retry":{"initialBackoffSeconds":0.5,"maxBackoffSeconds":5,"maxAttempts":100000}"#
        let daemon = try DaemonProcess(
            configuration: #""notification":{"notificationTriggerDelay":1}"#,
            extraSinks:
                #"{"type":"webhook","name":"hook","url":"http://127.0.0.1:\#(port)/hook","timeoutSeconds":2,"maxConcurrency":8,\#(retry)},{"type":"exec","name":"cmd","command":["\#(script)"],"timeoutSeconds":1,\#(retry)}"#
        )
        try daemon.start()
        let pid = try #require(daemon.pid)
        let users = (0..<300).map { "soak-\($0)" }
        for user in users { #expect(try daemon.post(user, #"{"location":"whileInUse"}"#).status == 200) }
        let fileEvents = try await daemon.waitForEvents(users.count, timeout: .seconds(60))
        #expect(fileEvents.count == users.count, "the file sink waited for the failing ones")
        let expected = Set(try fileEvents.map { try WebhookOutageEndToEndTests.eventID($0) })
        var samples: [Int] = [Self.rss(pid)]

        // A minute with the receiver down (connection refused).
        for _ in 0..<6 {
            try await Task.sleep(for: .seconds(10))
            samples.append(Self.rss(pid))
        }
        let failedWhileDown =
            try WebhookOutageEndToEndTests.metric(daemon, "remindd_sink_failed_attempts_total", #"sink="hook""#) ?? 0
        #expect(failedWhileDown > 50)
        #expect(
            try WebhookOutageEndToEndTests.metric(daemon, "remindd_sink_last_backoff_seconds", #"sink="hook""#) ?? 0 > 0
        )
        #expect(try WebhookOutageEndToEndTests.metric(daemon, "remindd_sink_retrying_events", #"sink="hook""#) ?? 0 > 0)
        #expect(try WebhookOutageEndToEndTests.metric(daemon, "remindd_sink_outbox_depth", #"sink="hook""#) == 300)
        #expect(try WebhookOutageEndToEndTests.metric(daemon, "remindd_sink_outbox_depth", #"sink="cmd""#) == 300)

        let receiver = WebhookReceiver(port: port)
        try await receiver.serving {
            // 30 s answering after 10 s (past the 2 s timeout), then 30 s of 503.
            receiver.responseDelay.withLock { $0 = .seconds(10) }
            for _ in 0..<3 {
                try await Task.sleep(for: .seconds(10))
                samples.append(Self.rss(pid))
            }
            receiver.responseDelay.withLock { $0 = .zero }
            receiver.fallbackStatus.withLock { $0 = 503 }
            for _ in 0..<3 {
                try await Task.sleep(for: .seconds(10))
                samples.append(Self.rss(pid))
            }
            #expect(receiver.received.withLock { $0 }.allSatisfy { !$0.acceptedPromptly })
            receiver.fallbackStatus.withLock { $0 = 200 }
            try FileManager.default.removeItem(atPath: hangFlag)
            try await WebhookOutageEndToEndTests.eventually(timeout: .seconds(120)) {
                try WebhookOutageEndToEndTests.metric(daemon, "remindd_sink_outbox_depth", #"sink="hook""#) == 0
                    && WebhookOutageEndToEndTests.metric(daemon, "remindd_sink_outbox_depth", #"sink="cmd""#) == 0
            }
            let delivered = Set(
                receiver.received.withLock { $0 }.filter(\.acceptedPromptly).compactMap {
                    $0.headers["idempotency-key"]
                })
            #expect(delivered.isSuperset(of: expected))
            let execLines = ((try? String(contentsOfFile: directory + "/exec.jsonl", encoding: .utf8)) ?? "")
                .split(separator: "\n")
            let execIDs = Set(try execLines.map { try WebhookOutageEndToEndTests.eventID(String($0)) })
            #expect(execIDs.isSuperset(of: expected))
            let failed =
                try WebhookOutageEndToEndTests.metric(daemon, "remindd_sink_failed_attempts_total", #"sink="hook""#)
                ?? 0
            let execFailed =
                try WebhookOutageEndToEndTests.metric(daemon, "remindd_sink_failed_attempts_total", #"sink="cmd""#)
                ?? 0
            // Flat: after the outbox filled, the outage adds no memory (sampled every 10 s).
            let settled = samples.dropFirst(2)
            let growth = (settled.max() ?? 0) - (settled.min() ?? 0)
            #expect(growth < 8 * 1024, "RSS grew \(growth) KiB during the outage: \(samples)")
            print(
                "outage-soak: 300 events; webhook down 60 s, slow 30 s, 5xx 30 s: \(Int(failed)) failed attempts, \(delivered.intersection(expected).count)/300 delivered after; exec hung 120 s: \(Int(execFailed)) timeouts, \(execIDs.intersection(expected).count)/300 delivered after; file sink 300/300 during; RSS KiB \(samples.first ?? 0) -> \(samples.last ?? 0) (spread after fill \(growth))"
            )
        }
        #expect(daemon.stop() == 0)
    }
}
