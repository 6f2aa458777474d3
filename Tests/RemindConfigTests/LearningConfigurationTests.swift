import RemindConfig
import RemindCore
import Testing

/// `experiment.allocation` and `notification.sendTime` (docs/outcomes.md): strict, with the key
/// path in every refusal.
struct LearningConfigurationTests {
    /// The short forms take the defaults; the objects their own values; both write back.
    @Test func allocationAndSendTimeAreRead() throws {
        let short = try parse(#"{"experiment":{"allocation":"adaptive"},"notification":{"sendTime":"active"}}"#)
        #expect(short.policy.experiment.allocation == .adaptive(.init()))
        #expect(short.policy.notification.sendTime == .active(.init()))
        let full = try parse(
            #"{"experiment":{"variants":[{"name":"a"}],"allocation":{"type":"adaptive","reweightSeconds":3600,"#
                + #""horizonSeconds":86400,"minEpisodes":50,"minWeight":0.5}},"#
                + #""notification":{"sendTime":{"type":"active","maxDelaySeconds":7200,"minReports":3,"holdoutPercent":20}}}"#
        )
        #expect(
            full.policy.experiment.allocation
                == .adaptive(.init(reweightSeconds: 3600, horizonSeconds: 86_400, minEpisodes: 50, minWeight: 0.5)))
        #expect(
            full.policy.notification.sendTime
                == .active(.init(maxDelaySeconds: 7200, minReports: 3, holdoutPercent: 20)))
        let effective = full.json.serialized
        #expect(
            effective.contains(
                #""allocation":{"type":"adaptive","reweightSeconds":3600,"horizonSeconds":86400,"minEpisodes":50,"minWeight":0.5}"#
            ))
        #expect(
            effective.contains(
                #""sendTime":{"type":"active","maxDelaySeconds":7200,"minReports":3,"holdoutPercent":20}"#))
        #expect(try parse(#"{"experiment":{"allocation":{"type":"fixed"}}}"#).policy.experiment.allocation == .fixed)
    }

    @Test(arguments: [
        (#"{"experiment":{"allocation":"smart"}}"#, "experiment.allocation"),
        (#"{"experiment":{"allocation":7}}"#, "experiment.allocation"),
        (#"{"experiment":{"allocation":{"reweightSeconds":60}}}"#, "experiment.allocation.type"),
        (
            #"{"experiment":{"allocation":{"type":"adaptive","reweightSeconds":-1}}}"#,
            "experiment.allocation.reweightSeconds"
        ),
        (
            #"{"experiment":{"allocation":{"type":"adaptive","horizonSeconds":0}}}"#,
            "experiment.allocation.horizonSeconds"
        ),
        (
            #"{"experiment":{"allocation":{"type":"adaptive","horizonSeconds":"1d"}}}"#,
            "experiment.allocation.horizonSeconds"
        ),
        (#"{"experiment":{"allocation":{"type":"adaptive","minEpisodes":-5}}}"#, "experiment.allocation.minEpisodes"),
        (#"{"experiment":{"allocation":{"type":"adaptive","minWeight":1.5}}}"#, "experiment.allocation.minWeight"),
        // Three groups cannot each receive 0.4.
        (
            #"{"experiment":{"variants":[{"name":"a"},{"name":"b"}],"allocation":{"type":"adaptive","minWeight":0.4}}}"#,
            "experiment.allocation.minWeight"
        ),
        (#"{"experiment":{"allocation":{"type":"adaptive","explore":true}}}"#, "experiment.allocation.explore"),
        (#"{"notification":{"sendTime":"later"}}"#, "notification.sendTime"),
        (#"{"notification":{"sendTime":[]}}"#, "notification.sendTime"),
        (
            #"{"notification":{"sendTime":{"type":"active","maxDelaySeconds":-60}}}"#,
            "notification.sendTime.maxDelaySeconds"
        ),
        (#"{"notification":{"sendTime":{"type":"active","minReports":65}}}"#, "notification.sendTime.minReports"),
        (
            #"{"notification":{"sendTime":{"type":"active","holdoutPercent":120}}}"#,
            "notification.sendTime.holdoutPercent"
        ),
        (#"{"notification":{"sendTime":{"type":"active","minReports":"5"}}}"#, "notification.sendTime.minReports"),
        (#"{"notification":{"sendTime":{"type":"active","hour":20}}}"#, "notification.sendTime.hour"),
    ])
    func badSettingsAreRefusedNamingTheKey(document: String, field: String) {
        let error = refusal(document)
        #expect(error?.field == field, "\(document): \(String(describing: error))")
    }

    /// Two groups may each receive exactly one half.
    @Test func aFloorTheGroupsCanAllReceiveIsAccepted() throws {
        let configuration = try parse(
            #"{"experiment":{"variants":[{"name":"a"}],"allocation":{"type":"adaptive","minWeight":0.5}}}"#)
        #expect(configuration.policy.experiment.allocation.adaptive?.minWeight == 0.5)
    }
}
