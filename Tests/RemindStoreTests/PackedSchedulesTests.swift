import Foundation
import RemindCore
import RemindTesting
import Testing

@testable import RemindStore

struct PackedSchedulesTests {
    func schedule(_ id: String, zone: String?, started: Date?, errors: [PermissionErrorType]) throws -> UserSchedule {
        UserSchedule(
            userID: try UserID(id), errors: PermissionErrorSet(errors),
            conditions: ServiceConditions([.locationServices, .precise, .motion]),
            notificationsDeliverable: zone == nil, timeZone: zone,
            episodeStartedAt: started, deliveredCount: 3, lastDeliveredAt: started?.addingTimeInterval(0.000_123),
            isSuppressed: zone != nil, lastReportAt: Date(timeIntervalSince1970: 1_795_000_000.123_456),
            lastHeartbeatAt: nil)
    }

    /// The push address's service and reachability share a byte with the active hour: each
    /// comes back as stored, and the users counted by hour are counted by the hour alone.
    @Test func pushStateAndActiveHourShareTheirByte() throws {
        var table = PackedSchedules()
        let reaches: [PushReach?] = [
            nil, PushReach(service: .apns, isReachable: true), PushReach(service: .fcm, isReachable: false),
            PushReach(service: .apns, isReachable: false), PushReach(service: .fcm, isReachable: true),
        ]
        var expected = [Int](repeating: 0, count: 24)
        for (index, push) in reaches.enumerated() {
            var row = try schedule("p-\(index)", zone: nil, started: nil, errors: [])
            row.push = push
            row.activeHour = index == 0 ? nil : 23 - index
            row.activityReports = 5
            if let hour = row.activeHour { expected[hour] += 1 }
            table[row.userID] = row
            #expect(table[row.userID] == row)
        }
        #expect(table.usersByActiveHour() == expected)
        var dead = try #require(table[try UserID("p-1")])
        dead.push?.isReachable = false
        table[dead.userID] = dead
        #expect(table[dead.userID]?.push == PushReach(service: .apns, isReachable: false))
        #expect(table.usersByActiveHour() == expected)
    }

    @Test func schedulesComeBackExactlyAndRowsAreReused() throws {
        var table = PackedSchedules()
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

    /// Locales (any BCP 47-shaped tag a client sends) and experiment groups past what the
    /// tables number come back exactly too; a row rewritten with numbered values, or removed,
    /// leaves nothing behind in the overflow.
    @Test func localesAndGroupsPastTheTablesComeBackExactly() throws {
        // Tables of 8 values each (65,534 and 254 in the daemon).
        var table = PackedSchedules(internCapacity: 8)
        let started = Date(timeIntervalSince1970: 1_794_736_800.5)
        var schedules: [UserSchedule] = []
        for index in 0..<40 {
            var next = try schedule("l\(index)", zone: nil, started: started, errors: [.locationNotAuthorizedAlways])
            next.locale = "x-\(index)"
            next.episodeGroup = "g\(index % 12)"
            table[next.userID] = next
            schedules.append(next)
        }
        for expected in schedules { #expect(table[expected.userID] == expected) }
        var last = try #require(schedules.last)
        last.locale = "x-1"
        last.episodeGroup = "g1"
        table[last.userID] = last
        #expect(table[last.userID] == last)
        let removed = schedules[schedules.count - 2]
        table[removed.userID] = nil
        #expect(table[removed.userID] == nil)
        table[removed.userID] = try schedule(removed.userID.rawValue, zone: nil, started: nil, errors: [])
        #expect(table[removed.userID]?.locale == nil && table[removed.userID]?.episodeGroup == nil)
        var open: [String: Int] = [:]
        table.forEachOpenEpisode { open[$0.group, default: 0] += 1 }
        #expect(open.count == 12 && open.values.reduce(0, +) == schedules.count - 1)
    }

    /// The wake-ups kept in the table's rows and the heap over them give, after any mix of
    /// sets, direct wake-ups, removals (whose rows are reused) and passes, exactly what a
    /// plain dictionary of wake-ups gives: the soonest wake-up, and the due users in order.
    @Test(arguments: 0..<20)
    func wakeUpsFollowAModel(seed: UInt64) throws {
        var rng = SplitMix64(seed: 0x5CED_0000 + seed)
        var book = Schedules(table: PackedSchedules(), policy: ReminderPolicy(), daemonStartedAt: .distantPast)
        var model: [UserID: Date] = [:]
        let users = try (0..<64).map { try UserID("w\($0)") }
        let base = Date(timeIntervalSince1970: 1_795_000_000)
        var now = base
        for _ in 0..<2_000 {
            let userID = users[rng.int(0...63)]
            switch rng.int(0...9) {
            case 0...2:
                let schedule = try schedule(userID.rawValue, zone: nil, started: nil, errors: [])
                // No episode and no heartbeats: the policy gives no wake-up.
                book.set(schedule)
                model[userID] = nil
            case 3...5 where book[userID] != nil:
                let wake = rng.chance(0.2) ? nil : base.addingTimeInterval(Double(rng.int(0...600)))
                book.wake(userID, at: wake)
                model[userID] = wake
            case 6:
                book.remove(userID)
                model[userID] = nil
            case 7...8:
                now = now.addingTimeInterval(Double(rng.int(0...60)))
                let limit = rng.int(1...8)
                let expected = model.filter { $0.value <= now }
                    .sorted { $0.value < $1.value || ($0.value == $1.value && $0.key < $1.key) }
                    .prefix(limit).map(\.key)
                #expect(book.popDue(now: now, limit: limit) == expected)
                for userID in expected { model[userID] = nil }
            default:
                break
            }
            #expect(book.nextWake == model.values.min())
            #expect(book.hasWake(userID) == (model[userID] != nil))
        }
    }
}

/// The user's active hour and the reports behind it travel in the row's last two bytes.
struct PackedActivityTests {
    @Test func activeHourAndReportsComeBackAndAreCounted() throws {
        var table = PackedSchedules()
        var counts: [UserSchedule] = []
        for (index, hour) in [nil, 0, 19, 23, 19].enumerated() {
            let schedule = UserSchedule(
                userID: try UserID("u\(index)"), errors: PermissionErrorSet([]), notificationsDeliverable: true,
                timeZone: nil, episodeStartedAt: nil, deliveredCount: 0, lastDeliveredAt: nil, isSuppressed: false,
                lastReportAt: Date(timeIntervalSince1970: 1_795_000_000), lastHeartbeatAt: nil, activeHour: hour,
                activityReports: hour == nil ? 0 : 64)
            table[schedule.userID] = schedule
            counts.append(schedule)
        }
        for schedule in counts { #expect(table[schedule.userID] == schedule) }
        var expected = [Int](repeating: 0, count: 24)
        expected[0] = 1
        expected[19] = 2
        expected[23] = 1
        #expect(table.usersByActiveHour() == expected)
    }

    /// The counts by hour are kept with every row put, replaced, removed or loaded, not
    /// counted again: after random changes they are what counting every row gives.
    @Test(arguments: 0..<10)
    func countsByHourFollowEveryChange(seed: UInt64) throws {
        var rng = SplitMix64(seed: 0xAC71_0000 + seed)
        var table = PackedSchedules()
        var model: [UserID: Int?] = [:]
        let users = try (0..<48).map { try UserID("h\($0)") }
        for _ in 0..<1_500 {
            let userID = users[rng.int(0...47)]
            if rng.chance(0.2) {
                table[userID] = nil
                model[userID] = nil
            } else {
                let hour: Int? = rng.chance(0.2) ? nil : rng.int(0...23)
                table[userID] = UserSchedule(
                    userID: userID, errors: PermissionErrorSet([]), notificationsDeliverable: true, timeZone: nil,
                    episodeStartedAt: nil, deliveredCount: 0, lastDeliveredAt: nil, isSuppressed: false,
                    lastReportAt: Date(timeIntervalSince1970: 1_795_000_000), lastHeartbeatAt: nil, activeHour: hour,
                    activityReports: hour == nil ? 0 : 8)
                model[userID] = .some(hour)
            }
            var expected = [Int](repeating: 0, count: 24)
            for hour in model.values.compactMap({ $0 }) { expected[hour] += 1 }
            #expect(table.usersByActiveHour() == expected)
        }
    }
}
