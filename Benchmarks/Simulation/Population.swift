import Foundation
import RemindCore

/// The simulated users: what they are like (hidden from the daemon's code) and the seeded
/// draws that decide what they do. Nothing here is measured from real users.
struct Population {
    struct User {
        var id: UserID
        var timeZone: String
        /// The local hour in which this user mostly uses the phone (hidden).
        var activeHour: Int
        /// When the user's episode opens (the report without Always access).
        var episodeStart: Date
        /// Reports before the episode (app launches with Always access).
        var warmUpReports: Int
    }

    static let zones = [
        "America/New_York", "America/Los_Angeles", "America/Sao_Paulo", "Europe/London", "Europe/Berlin",
        "Asia/Kolkata", "Asia/Tokyo", "Australia/Sydney",
    ]
    /// Local hours people mostly use their phone in, and how common each is.
    static let hours: [(hour: Int, weight: Double)] = [
        (7, 2), (8, 3), (12, 2), (13, 1), (17, 1), (18, 3), (19, 4), (20, 5), (21, 4), (22, 2),
    ]

    var users: [User] = []

    init(count: Int, start: Date, days: Int, generator: inout SeededGenerator) {
        users.reserveCapacity(count)
        let totalWeight = Self.hours.reduce(0) { $0 + $1.weight }
        for index in 0..<count {
            var pick = generator.unit() * totalWeight
            var hour = Self.hours[0].hour
            for entry in Self.hours {
                pick -= entry.weight
                if pick < 0 {
                    hour = entry.hour
                    break
                }
            }
            let offset = generator.unit() * Double(days) * 86_400
            users.append(
                User(
                    id: try! UserID("sim-\(index)"),
                    timeZone: Self.zones[Int(generator.next() % UInt64(Self.zones.count))],
                    activeHour: hour, episodeStart: start.addingTimeInterval(offset.rounded(.down)),
                    warmUpReports: Int(generator.next() % 11)))
        }
    }

    /// An instant on the local day `day` days before `date` at a time the user would report:
    /// in their active hour with probability 0.7, else at any hour.
    static func reportTime(
        for user: User, daysBefore day: Int, of date: Date, generator: inout SeededGenerator
    ) -> Date {
        let zone = TimeZoneCache.zone(user.timeZone)!
        let base = date.addingTimeInterval(-Double(day) * 86_400)
        let offset = Double(zone.secondsFromGMT(for: base))
        let localDay = ((base.timeIntervalSince1970 + offset) / 86_400).rounded(.down) * 86_400
        let hour = generator.unit() < 0.7 ? user.activeHour : Int(generator.next() % 24)
        let local = localDay + Double(hour) * 3_600 + (generator.unit() * 3_600).rounded(.down)
        return Date(timeIntervalSince1970: local - offset)
    }
}
