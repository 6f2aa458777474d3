import RemindCore
import Testing

struct PermissionErrorTests {
    /// Every error present at once is listed in the documented precedence order.
    @Test func errorsAreListedInPrecedenceOrder() {
        let permissions = Permissions(
            location: .whileInUse, accuracy: .reduced, locationServices: false, notifications: .denied)
        #expect(
            permissions.errors == [
                .locationServicesTurnedOff, .locationNotAuthorizedAlways, .preciseLocationNotEnabled,
                .notificationsTurnedOff,
            ])
        #expect(PermissionErrorType.allCases.sorted() == PermissionErrorType.allCases)
    }

    /// Always access needs both `location == always` and Location Services on.
    @Test func alwaysAccessRequiresLocationServices() {
        #expect(Permissions(location: .always).hasAlwaysAccess)
        #expect(!Permissions(location: .always, locationServices: false).hasAlwaysAccess)
        #expect(!Permissions(location: .whileInUse).hasAlwaysAccess)
        // Reduced accuracy and denied notifications are errors but do not deny Always access.
        #expect(Permissions(location: .always, accuracy: .reduced, notifications: .denied).hasAlwaysAccess)
    }

    /// The reason of a reminder is the first of errors 1–2 present.
    @Test func reminderReasonIsFirstOfServicesAndLocation() {
        #expect(Permissions(location: .always, locationServices: false).reminderReason == .locationServicesTurnedOff)
        #expect(Permissions(location: .denied, locationServices: false).reminderReason == .locationServicesTurnedOff)
        #expect(Permissions(location: .allowOnce).reminderReason == .locationNotAuthorizedAlways)
        #expect(Permissions(location: .always, accuracy: .reduced).reminderReason == nil)
    }

    /// Only notDetermined and denied block delivery; unknown, provisional and authorized do not.
    @Test func deliverableNotificationStates() {
        let deliverable = NotificationAuthorization.allCases.filter(\.isDeliverable)
        #expect(deliverable == [.unknown, .provisional, .authorized])
        #expect(Permissions(location: .always, notifications: .notDetermined).errors == [.notificationsTurnedOff])
    }
}
