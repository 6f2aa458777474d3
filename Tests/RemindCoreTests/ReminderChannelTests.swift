import Foundation
import RemindCore
import RemindTesting
import Testing

/// The channel a due reminder takes: push unless no push sink can deliver it, for the reasons
/// in their order; without a fallback sink, today's behaviour.
struct ReminderChannelTests {
    let now = Fixtures.date("2026-11-28T12:00:00Z")
    let token = String(repeating: "ab", count: 32)

    func address(_ service: PushService = .apns, dead: Bool = false) -> PushAddress {
        PushAddress(
            service: service, token: service == .apns ? token : "fcm-token",
            unreachable: dead ? .init(reason: "Unregistered", since: now) : nil)
    }

    @Test func withoutAFallbackSinkNothingChanges() {
        let channels = ChannelConfiguration(pushServices: [.apns], hasFallback: false)
        #expect(
            channels.decide(push: nil, notificationsDeliverable: true, lastReportAt: now, now: now)?.channel == .push)
        #expect(channels.decide(push: address(), notificationsDeliverable: false, lastReportAt: now, now: now) == nil)
    }

    @Test func eachReasonInItsOrder() {
        let channels = ChannelConfiguration(pushServices: [.apns], hasFallback: true, silentAfterSeconds: 86_400)
        let old = now.addingTimeInterval(-2 * 86_400)
        func because(_ push: PushAddress?, deliverable: Bool = true, last: Date? = nil) -> FallbackReason?? {
            channels.decide(push: push, notificationsDeliverable: deliverable, lastReportAt: last ?? now, now: now)
                .map(\.because)
        }
        #expect(because(address()) == .some(nil))
        #expect(because(nil, deliverable: false, last: old) == .noPushAddress)
        // An FCM address with only an APNs sink configured is no address for it.
        #expect(because(address(.fcm)) == .noPushAddress)
        #expect(because(address(dead: true), deliverable: false) == .unreachable)
        #expect(because(address(), deliverable: false, last: old) == .notificationsOff)
        #expect(because(address(), last: old) == .silent)
        #expect(because(address(), last: now.addingTimeInterval(-86_399)) == .some(nil))
        let never = ChannelConfiguration(pushServices: [.apns], hasFallback: true, silentAfterSeconds: nil)
        #expect(
            never.decide(push: address(), notificationsDeliverable: true, lastReportAt: old, now: now)?.channel == .push
        )
        // No push sink at all: everyone falls back.
        let none = ChannelConfiguration(pushServices: [], hasFallback: true)
        #expect(
            none.decide(push: address(), notificationsDeliverable: true, lastReportAt: now, now: now)?.because
                == .noPushAddress)
    }
}
