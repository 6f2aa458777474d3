import Foundation
import RemindCore
import RemindTesting
import Testing

/// Services (docs/configuration.md): each condition, and the state a service is in when it does not hold.
struct ServiceTests {
    /// Each condition holds exactly when docs/configuration.md says; a permission never reported does not.
    @Test func eachConditionHoldsAsDesigned() {
        func holds(_ permissions: Permissions) -> [ServiceCondition] { permissions.conditions.members }
        #expect(
            holds(Permissions(location: .always, notifications: .authorized, motion: .authorized))
                == ServiceCondition.allCases)
        // Never reported: motion and notifications do not hold.
        #expect(holds(Permissions(location: .always)) == [.locationServices, .location, .always, .precise])
        // Location Services off: no location condition holds, precise is about accuracy alone.
        #expect(holds(Permissions(location: .always, locationServices: false)) == [.precise])
        for location in LocationAuthorization.allCases {
            let conditions = Permissions(location: location).conditions
            #expect(conditions.contains(.location) == [.allowOnce, .whileInUse, .always].contains(location))
            #expect(conditions.contains(.always) == (location == .always))
        }
        #expect(!Permissions(location: .always, accuracy: .reduced).conditions.contains(.precise))
        #expect(Permissions(location: .denied, accuracy: .full).conditions.contains(.precise))
        for motion in MotionAuthorization.allCases {
            #expect(
                Permissions(location: .always, motion: motion).conditions.contains(.motion) == (motion == .authorized))
        }
        for notifications in NotificationAuthorization.allCases {
            #expect(
                Permissions(location: .always, notifications: notifications).conditions.contains(.notifications)
                    == (notifications == .provisional || notifications == .authorized))
        }
    }

    static let driving = ServiceDefinition(
        name: "driving", requires: [.location, .always], optional: [.precise, .motion])
    static let walking = ServiceDefinition(name: "walking", requires: [.motion])

    /// A service is active with everything, degraded with only optional conditions missing,
    /// and permissionMissing when a required one is; `missing` lists both kinds.
    @Test func statesFollowRequiredAndOptionalConditions() {
        let everything = Permissions(location: .always, motion: .authorized)
        #expect(Self.driving.status(everything.conditions) == ServiceStatus(state: .active, missing: []))
        let reduced = Permissions(location: .always, accuracy: .reduced, motion: .denied)
        #expect(
            Self.driving.status(reduced.conditions) == ServiceStatus(state: .degraded, missing: [.precise, .motion]))
        let whileInUse = Permissions(location: .whileInUse, accuracy: .reduced, motion: .authorized)
        #expect(
            Self.driving.status(whileInUse.conditions)
                == ServiceStatus(state: .permissionMissing, missing: [.always, .precise]))
        #expect(Self.walking.status(whileInUse.conditions).state == .active)
        #expect(
            Self.walking.status(Permissions(location: .always).conditions)
                == ServiceStatus(state: .permissionMissing, missing: [.motion]))
    }

    /// Every condition, alone missing from a service that requires it, stops the service;
    /// as an optional one it degrades it.
    @Test(arguments: ServiceCondition.allCases)
    func eachConditionStopsOrDegradesItsService(_ condition: ServiceCondition) {
        let all = ServiceConditions(ServiceCondition.allCases)
        let without = ServiceConditions(ServiceCondition.allCases.filter { $0 != condition })
        let requiring = ServiceDefinition(name: "r", requires: [condition])
        let optional = ServiceDefinition(
            name: "o", requires: [.locationServices == condition ? .precise : .locationServices], optional: [condition])
        #expect(requiring.status(all).state == .active)
        #expect(requiring.status(without) == ServiceStatus(state: .permissionMissing, missing: [condition]))
        #expect(optional.status(without) == ServiceStatus(state: .degraded, missing: [condition]))
    }

    /// Counts per state follow from users counted per combination of conditions.
    @Test func countsComeFromConditionCombinations() {
        var users = ConditionCounts()
        users[Permissions(location: .always, motion: .authorized).conditions] += 3
        users[Permissions(location: .always, accuracy: .reduced).conditions] += 2
        users[Permissions(location: .whileInUse).conditions] += 1
        #expect(Self.driving.counts(users) == [.active: 3, .degraded: 2, .permissionMissing: 1])
        #expect(Self.walking.counts(users) == [.active: 3, .degraded: 0, .permissionMissing: 3])
        #expect(users.total == 6)
    }

    /// The user's services are evaluated by the policy from the current permissions, and
    /// `explain` names what is broken and what would fix it.
    @Test func explainNamesBrokenServicesAndTheirFixes() {
        var configuration = PolicyConfiguration()
        configuration.services = [Self.driving, Self.walking]
        var harness = PolicyHarness(configuration)
        harness.report(Fixtures.report(.whileInUse, at: "2026-11-15T10:00:00Z", motion: .authorized))
        let services = harness.policy.services(harness.record!.permissions!)
        #expect(services.map(\.name) == ["driving", "walking"])
        #expect(services.map(\.status.state) == [.permissionMissing, .active])
        let explanation = harness.policy.explain(harness.record!, now: harness.now, daemonStartedAt: nil)
        #expect(explanation.reasons.map(\.code) == [.episodeOpen, .due, .service, .push])
        #expect(explanation.reasons[2].text.contains("driving is permissionMissing"))
        #expect(explanation.reasons[2].text.contains(ServiceCondition.always.fix))
    }

    /// Service names are `[a-z0-9_-]{1,64}`.
    @Test func serviceNamesAreChecked() {
        for good in ["driving", "a", "cycling_2", "walk-ing", String(repeating: "x", count: 64)] {
            #expect(ServiceDefinition.isValidName(good), "\(good)")
        }
        for bad in ["", "Driving", "dr iving", "drivïng", "a.b", String(repeating: "x", count: 65)] {
            #expect(!ServiceDefinition.isValidName(bad), "\(bad)")
        }
    }
}
