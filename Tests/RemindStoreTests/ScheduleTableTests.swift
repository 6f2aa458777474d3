import Foundation
import RemindCore
import Testing

@testable import RemindStore

struct ScheduleTableTests {
    func schedule(_ id: String, zone: String?, started: Date?, errors: [PermissionErrorType]) throws -> UserSchedule {
        UserSchedule(
            userID: try UserID(id), errors: PermissionErrorSet(errors),
            conditions: ServiceConditions([.locationServices, .precise, .motion]),
            notificationsDeliverable: zone == nil, timeZone: zone,
            episodeStartedAt: started, deliveredCount: 3, lastDeliveredAt: started?.addingTimeInterval(0.000_123),
            isSuppressed: zone != nil, lastReportAt: Date(timeIntervalSince1970: 1_795_000_000.123_456),
            lastHeartbeatAt: nil)
    }

    @Test func schedulesComeBackExactlyAndRowsAreReused() throws {
        var table = ScheduleTable()
        let started = Date(timeIntervalSince1970: 1_794_736_800.987_654_321)
        let a = try schedule(
            "a", zone: "Europe/Berlin", started: started, errors: [.locationNotAuthorizedAlways, .motionNotAuthorized])
        let b = try schedule("b-with-a-long-identifier@example.com", zone: nil, started: nil, errors: [])
        let c = try schedule("c", zone: "Europe/Berlin", started: started, errors: [.locationServicesTurnedOff])
        table[a.userID] = a
        table[b.userID] = b
        #expect(table.count == 2)
        #expect(table[a.userID] == a)
        #expect(table[b.userID] == b)
        table[b.userID] = nil
        #expect(table[b.userID] == nil)
        #expect(table.count == 1)
        table[c.userID] = c
        var changed = a
        changed.deliveredCount = 4
        table[a.userID] = changed
        #expect(table[a.userID] == changed)
        #expect(table[c.userID] == c)
        #expect(Set(table.values.map(\.userID)) == [a.userID, c.userID])
    }
}
