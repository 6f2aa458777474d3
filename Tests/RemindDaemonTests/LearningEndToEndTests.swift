import Foundation
import RemindClient
import RemindCore
import RemindTesting
import Testing

/// The real binary learning its allocation (docs/outcomes.md "Adaptive allocation"), on the
/// backend of the run: what it learned before a restart is what it uses after it.
@Suite(.ownThread, .serialized)
struct LearningEndToEndTests {
    static func configuration(reweightSeconds: Int) -> String {
        #""notification":{"notificationTriggerDelay":3600},"#
            + #""experiment":{"variants":[{"name":"short","weight":1}],"#
            + #""allocation":{"type":"adaptive","reweightSeconds":\#(reweightSeconds),"#
            + #""horizonSeconds":1,"minEpisodes":0}}"#
    }

    /// `allocation` of `/v1/stats` over every episode.
    static func allocation(_ daemon: DaemonProcess) throws -> JSONObject {
        let reply = try daemon.client.send("GET", "/v1/stats?since=2020-01-01T00:00:00Z")
        guard case .object(let stats) = try JSONParser.parse(reply.body),
            case .object(let allocation)? = stats["allocation"]
        else { throw POSIXError(.EPROTO) }
        return allocation
    }

    /// The episodes the groups' counts have decided.
    static func decided(_ allocation: JSONObject) -> Int64 {
        guard case .object(let groups)? = allocation["groups"] else { return 0 }
        return groups.members.reduce(0) { total, member in
            guard case .object(let group) = member.value, case .int(let successes)? = group["successes"],
                case .int(let failures)? = group["failures"]
            else { return total }
            return total + successes + failures
        }
    }

    /// A restart is not a reweight: after a restart that also changes `reweightSeconds`, the
    /// allocation in force is the one learned before it, with its counts and `computedAt`.
    @Test func restartKeepsTheLearnedAllocation() async throws {
        let daemon = try DaemonProcess(configuration: Self.configuration(reweightSeconds: 2))
        try daemon.start()
        defer { daemon.stop() }
        let opened = RFC3339.format(Date().addingTimeInterval(-120))
        let fixed = RFC3339.format(Date().addingTimeInterval(-60))
        for index in 0..<40 {
            #expect(
                try daemon.postRetrying("l-\(index)", #"{"location":"whileInUse","observedAt":"\#(opened)"}"#).status
                    == 200)
        }
        for index in 0..<20 {
            #expect(
                try daemon.postRetrying("l-\(index)", #"{"location":"always","observedAt":"\#(fixed)"}"#).status == 200)
        }
        // Recomputed every 2 s: 20 resolved, 20 open for longer than the 1 s horizon.
        var before: JSONObject = [:]
        try await WebhookOutageEndToEndTests.eventually {
            before = try Self.allocation(daemon)
            return Self.decided(before) == 40
        }
        #expect(before["computedAt"] != nil && before["computedAt"] != .null)
        #expect(daemon.stop() == 0)
        try daemon.writeConfiguration(Self.configuration(reweightSeconds: 7_200), extraSinks: "")
        try daemon.start()
        let after = try Self.allocation(daemon)
        #expect(after["computedAt"] == before["computedAt"], "\(after)")
        #expect(after["groups"] == before["groups"], "\(after)")
    }
}
