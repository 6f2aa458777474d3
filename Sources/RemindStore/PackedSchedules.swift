import Foundation
import RemindCore

/// Every user's `UserSchedule`, packed: what the daemon keeps in memory for each of a million
/// users, so its size is the daemon's size (`make bench` W3, goal ≤ 200 B per user).
///
/// A `[UserID: UserSchedule]` costs about 260 B per user at a million: the dictionary keeps
/// 1.5–2 buckets per entry and each bucket holds the 16-byte key beside a 120-byte value with
/// its optionals' padding. Here the dictionary maps an ID to a 4-byte row number, and the rows
/// are 70-byte `Row`s (72 with alignment, the next wake-up included) in one array: dates as
/// their exact `Double` (NaN for none), the time zone, the experiment group and the locale as
/// numbers in tables of those seen, the small fields in bytes. A schedule read back is equal
/// to the one stored.
struct PackedSchedules: Sendable {
    private struct Row {
        var userID: UserID
        var episodeStartedAt: Double
        var lastDeliveredAt: Double
        var lastReportAt: Double
        var lastHeartbeatAt: Double
        /// The user's next wake-up (NaN for none): kept here rather than in a dictionary of
        /// its own beside the heap (`WakeUpHeap`), which cost 50 B per user at a million.
        var wake: Double = .nan
        var deliveredCount: Int32
        /// 0: none; else 1 + the index in `zones`.
        var zone: UInt16
        /// `PermissionErrorSet`: the current errors.
        var errors: UInt8
        /// `ServiceConditions`: what holds for the services (docs/configuration.md).
        var conditions: UInt8
        /// Bit 0: notifications deliverable; bit 1: suppressed; bit 2: counted as a pending
        /// reminder (see `Schedules`); bits 3–4: the platform (0 none, else 1 + its index
        /// in `ReportedPlatform`); bits 5–6 the open episode's opening (the same for
        /// `Episode.Opening`).
        var flags: UInt8
        /// The open episode's experiment group: 0 none, `overflowedGroup` for one kept in
        /// `overflow`, else its number in `groups`.
        var group: UInt8
        /// The open episode's opening reason: 0 none, else 1 + its index in `PermissionErrorType`.
        var reason: UInt8
        /// The open episode's `FunnelMarks` (in what was padding before `locale`).
        var marks: UInt8 = 0
        /// The device's locale: 0 none, `overflowedLocale` for one kept in `overflow`, else its
        /// number in `locales`. (In what was padding: the row stays 72 bytes.)
        var locale: UInt16 = 0
        /// Bits 0–4: the user's most active hour, 0 none, else 1 + the hour; bits 5–7: the push
        /// address (`pushBits`). Then the reports the hour rests on (at most 64 after halving).
        /// The last two bytes of padding: still 72.
        var activeHour: UInt8 = 0
        var activityReports: UInt8 = 0

        /// The most active hour's number (0 none, else 1 + the hour).
        var hour: Int { Int(activeHour & 0x1F) }
    }

    private var rows: [Row] = []
    private var rowOf: [UserID: UInt32] = [:]
    /// Rows of deleted users, reused before the array grows.
    private var freeRows: [UInt32] = []
    /// Rows by their most active hour (`Row.activeHour`, 1–24; 0, none, is not counted), kept
    /// with every row placed or removed: the population's hour is read every minute.
    private var activeHours = [Int](repeating: 0, count: 25)
    /// Time zones seen (IANA knows a few hundred; a report's zone is validated).
    private var zones = InternedStrings<UInt16>(capacity: Int(UInt16.max) - 1)
    /// Experiment groups seen: `default`, `holdout` and the variants' names (at most 64 each
    /// configuration; names of removed variants stay while their episodes are open).
    private var groups = InternedStrings<UInt8>(capacity: Int(UInt8.max) - 1)
    /// Locales seen. A report's locale is any BCP 47-shaped tag, so a client could send
    /// thousands: past the table's capacity, a row keeps its locale and group in `overflow`.
    private var locales = InternedStrings<UInt16>(capacity: Int(UInt16.max) - 1)
    private static let overflowedLocale = UInt16.max
    private static let overflowedGroup = UInt8.max
    /// The locale and group of rows whose value did not fit the tables (normally none).
    private var overflow: [UserID: (locale: String?, group: String?)] = [:]

    init() {}

    /// A table whose locale and group tables fill up after `capacity` values each: what the
    /// overflow is tested with, without numbering 65,535 locales first.
    init(internCapacity capacity: Int) {
        groups = InternedStrings(capacity: min(capacity, groups.capacity))
        locales = InternedStrings(capacity: min(capacity, locales.capacity))
    }

    var count: Int { rowOf.count }

    /// Every user's ID, in no order.
    var userIDs: Dictionary<UserID, UInt32>.Keys { rowOf.keys }

    func contains(_ userID: UserID) -> Bool { rowOf[userID] != nil }

    mutating func reserveCapacity(_ capacity: Int) {
        rows.reserveCapacity(capacity)
        rowOf.reserveCapacity(capacity)
    }

    subscript(userID: UserID) -> UserSchedule? {
        get { rowOf[userID].map { schedule(rows[Int($0)]) } }
        set {
            guard let newValue else {
                if let row = rowOf.removeValue(forKey: userID) {
                    activeHours[rows[Int(row)].hour] -= 1
                    freeRows.append(row)
                    if !overflow.isEmpty { overflow[userID] = nil }
                    // Drop the ID's storage (a long ID is on the heap).
                    rows[Int(row)].userID = .placeholder
                }
                return
            }
            place(pack(newValue))
        }
    }

    /// Stores a packed row as its user's, keeping the user's wake-up; returns what the row it
    /// replaced counted (nil for a new user).
    @discardableResult
    private mutating func place(_ packed: Row) -> Counted? {
        guard let row = rowOf[packed.userID] else {
            insert(packed, for: packed.userID)
            return nil
        }
        let previous = Self.counted(rows[Int(row)])
        var packed = packed
        packed.wake = rows[Int(row)].wake
        activeHours[rows[Int(row)].hour] -= 1
        activeHours[packed.hour] += 1
        rows[Int(row)] = packed
        return previous
    }

    /// A row for a user not in the table: a freed one, else a new one.
    private mutating func insert(_ packed: Row, for userID: UserID) {
        activeHours[packed.hour] += 1
        if let row = freeRows.popLast() {
            rows[Int(row)] = packed
            rowOf[userID] = row
        } else {
            precondition(rows.count < Int(UInt32.max), "too many users")
            rowOf[userID] = UInt32(rows.count)
            rows.append(packed)
        }
    }

    /// What a user's row adds to the status counts.
    struct Counted: Equatable {
        var openEpisode: Bool
        var pendingReminder: Bool
        var conditions: ServiceConditions
    }

    private static let pendingFlag: UInt8 = 4

    private static func counted(_ row: Row) -> Counted {
        Counted(
            openEpisode: !row.episodeStartedAt.isNaN, pendingReminder: row.flags & pendingFlag != 0,
            conditions: ServiceConditions(rawValue: row.conditions))
    }

    /// Stores a schedule, marked as counting a pending reminder or not, and returns what the
    /// user's previous row counted (nil for a new user).
    @discardableResult
    mutating func put(_ schedule: UserSchedule, pendingReminder: Bool) -> Counted? {
        var packed = pack(schedule)
        if pendingReminder { packed.flags |= Self.pendingFlag }
        return place(packed)
    }

    /// A user's next wake-up; nil for none (or an unknown user).
    func wake(of userID: UserID) -> Date? {
        rowOf[userID].flatMap { Self.date(rows[Int($0)].wake) }
    }

    /// Sets a known user's next wake-up; true when that changed it (false for an unknown user
    /// or the same wake-up): one lookup on the path of every change.
    @discardableResult
    mutating func setWake(_ wake: Date?, of userID: UserID) -> Bool {
        guard let row = rowOf[userID], Self.date(rows[Int(row)].wake) != wake else { return false }
        rows[Int(row)].wake = Self.bits(wake)
        return true
    }

    /// Calls `body` with every user's next wake-up, for a heap built at once.
    func forEachWake(_ body: (UserID, Date) -> Void) {
        for row in rowOf.values where !rows[Int(row)].wake.isNaN {
            body(rows[Int(row)].userID, Date(timeIntervalSinceReferenceDate: rows[Int(row)].wake))
        }
    }

    /// Moves a user's `lastReportAt` (a repeated report), nothing else.
    mutating func setLastReportAt(_ date: Date, of userID: UserID) {
        guard let row = rowOf[userID] else { return }
        rows[Int(row)].lastReportAt = date.timeIntervalSinceReferenceDate
    }

    /// Removes a user and returns what their row counted (nil when unknown).
    mutating func remove(_ userID: UserID) -> Counted? {
        let previous = rowOf[userID].map { Self.counted(rows[Int($0)]) }
        self[userID] = nil
        return previous
    }

    /// Marks every row anew as counting a pending reminder or not, with its wake-up (a new
    /// policy).
    mutating func markPending(_ assess: (UserSchedule) -> (pending: Bool, wake: Date?)) {
        for row in rowOf.values {
            let index = Int(row)
            let (pending, wake) = assess(schedule(rows[index]))
            rows[index].flags = (rows[index].flags & ~Self.pendingFlag) | (pending ? Self.pendingFlag : 0)
            rows[index].wake = Self.bits(wake)
        }
    }

    /// Every schedule, in no particular order.
    var values: [UserSchedule] {
        var all: [UserSchedule] = []
        all.reserveCapacity(count)
        forEach { all.append($0) }
        return all
    }

    /// Calls `body` with every schedule, in no particular order, without building an array.
    func forEach(_ body: (UserSchedule) throws -> Void) rethrows {
        for row in rowOf.values { try body(schedule(rows[Int(row)])) }
    }

    private static func bits(_ date: Date?) -> Double { date?.timeIntervalSinceReferenceDate ?? .nan }
    private static func date(_ bits: Double) -> Date? {
        bits.isNaN ? nil : Date(timeIntervalSinceReferenceDate: bits)
    }

    private mutating func pack(_ schedule: UserSchedule) -> Row {
        let row = Row(
            userID: schedule.userID, episodeStartedAt: Self.bits(schedule.episodeStartedAt),
            lastDeliveredAt: Self.bits(schedule.lastDeliveredAt),
            lastReportAt: schedule.lastReportAt.timeIntervalSinceReferenceDate,
            lastHeartbeatAt: Self.bits(schedule.lastHeartbeatAt),
            deliveredCount: Int32(clamping: schedule.deliveredCount),
            zone: schedule.timeZone.map { zoneNumber($0) } ?? 0,
            errors: schedule.errors.rawValue, conditions: schedule.conditions.rawValue,
            flags: (schedule.notificationsDeliverable ? 1 : 0) | (schedule.isSuppressed ? 2 : 0)
                | Self.platformBits(schedule.platform) | Self.openingBits(schedule.episodeOpening),
            group: schedule.episodeGroup.map { groups.number($0) ?? Self.overflowedGroup } ?? 0,
            reason: schedule.episodeReason.map(Self.reasonNumber) ?? 0, marks: schedule.funnelMarks.rawValue,
            locale: schedule.locale.map { locales.number($0) ?? Self.overflowedLocale } ?? 0,
            activeHour: (schedule.activeHour.map { UInt8(clamping: $0 + 1) } ?? 0) | Self.pushBits(schedule.push),
            activityReports: UInt8(clamping: schedule.activityReports))
        keepOverflow(of: row, locale: schedule.locale, group: schedule.episodeGroup)
        return row
    }

    private mutating func zoneNumber(_ name: String) -> UInt16 { Self.checkedZone(zones.number(name)) }

    private static func checkedZone(_ number: UInt16?) -> UInt16 {
        guard let number else { preconditionFailure("too many time zones") }
        return number
    }

    /// Packs a row straight from a snapshot's user line, its strings still UTF-8 bytes: no
    /// `UserSchedule` and no `String` per field but the ID (building those for each of a million
    /// lines was half of start-up in `make bench` W4). Dates are as `bits` stores them.
    mutating func load(
        _ userID: UserID, errors: UInt8, conditions: UInt8, deliverable: Bool, suppressed: Bool,
        zone: Slice<UnsafeBufferPointer<UInt8>>?, episodeStartedAt: Double, deliveredCount: Int32,
        lastDeliveredAt: Double, lastReportAt: Double, lastHeartbeatAt: Double,
        group: Slice<UnsafeBufferPointer<UInt8>>?, reason: PermissionErrorType?,
        locale: Slice<UnsafeBufferPointer<UInt8>>?, activeHour: UInt8 = 0, activityReports: UInt8 = 0,
        platform: ReportedPlatform? = nil, marks: FunnelMarks = [], opening: Episode.Opening? = nil,
        push: PushReach? = nil
    ) {
        let row = Row(
            userID: userID, episodeStartedAt: episodeStartedAt, lastDeliveredAt: lastDeliveredAt,
            lastReportAt: lastReportAt, lastHeartbeatAt: lastHeartbeatAt, deliveredCount: deliveredCount,
            zone: zone.map { Self.checkedZone(zones.number(utf8: $0)) } ?? 0, errors: errors, conditions: conditions,
            flags: (deliverable ? 1 : 0) | (suppressed ? 2 : 0) | Self.platformBits(platform)
                | Self.openingBits(opening),
            group: group.map { groups.number(utf8: $0) ?? Self.overflowedGroup } ?? 0,
            reason: reason.map(Self.reasonNumber) ?? 0, marks: marks.rawValue,
            locale: locale.map { locales.number(utf8: $0) ?? Self.overflowedLocale } ?? 0,
            activeHour: activeHour | Self.pushBits(push), activityReports: activityReports)
        keepOverflow(
            of: row, locale: locale.map { String(decoding: $0, as: UTF8.self) },
            group: group.map { String(decoding: $0, as: UTF8.self) })
        place(row)
    }

    private static func platformBits(_ platform: ReportedPlatform?) -> UInt8 {
        platform.map { UInt8(ReportedPlatform.allCases.firstIndex(of: $0)! + 1) << 3 } ?? 0
    }

    private static func platform(_ flags: UInt8) -> ReportedPlatform? {
        let number = Int(flags >> 3 & 3)
        return number == 0 ? nil : ReportedPlatform.allCases[number - 1]
    }

    /// Bit 5: a push address; bit 6: its service is FCM (else APNs); bit 7: it is unreachable.
    private static func pushBits(_ push: PushReach?) -> UInt8 {
        guard let push else { return 0 }
        return 1 << 5 | (push.service == .fcm ? 1 << 6 : 0) | (push.isReachable ? 0 : 1 << 7)
    }

    private static func push(_ bits: UInt8) -> PushReach? {
        guard bits & 1 << 5 != 0 else { return nil }
        return PushReach(service: bits & 1 << 6 != 0 ? .fcm : .apns, isReachable: bits & 1 << 7 == 0)
    }

    private static func openingBits(_ opening: Episode.Opening?) -> UInt8 {
        opening.map { UInt8(Episode.Opening.allCases.firstIndex(of: $0)! + 1) << 5 } ?? 0
    }

    private static func opening(_ flags: UInt8) -> Episode.Opening? {
        let number = Int(flags >> 5 & 3)
        return number == 0 ? nil : Episode.Opening.allCases[number - 1]
    }

    private static func reasonNumber(_ reason: PermissionErrorType) -> UInt8 {
        UInt8(PermissionErrorType.allCases.firstIndex(of: reason)! + 1)
    }

    /// Keeps the locale and group of a row whose values did not fit the tables; forgets those of
    /// a row whose values now do.
    private mutating func keepOverflow(
        of row: Row, locale: @autoclosure () -> String?, group: @autoclosure () -> String?
    ) {
        if row.locale == Self.overflowedLocale || row.group == Self.overflowedGroup {
            overflow[row.userID] = (locale(), group())
        } else if !overflow.isEmpty {
            overflow[row.userID] = nil
        }
    }

    private func schedule(_ row: Row) -> UserSchedule {
        UserSchedule(
            userID: row.userID, errors: PermissionErrorSet(rawValue: row.errors),
            conditions: ServiceConditions(rawValue: row.conditions),
            notificationsDeliverable: row.flags & 1 != 0, timeZone: row.zone == 0 ? nil : zones[row.zone],
            episodeStartedAt: Self.date(row.episodeStartedAt), deliveredCount: Int(row.deliveredCount),
            lastDeliveredAt: Self.date(row.lastDeliveredAt),
            isSuppressed: row.flags & 2 != 0, lastReportAt: Date(timeIntervalSinceReferenceDate: row.lastReportAt),
            lastHeartbeatAt: Self.date(row.lastHeartbeatAt),
            episodeGroup: group(row),
            episodeReason: row.reason == 0 ? nil : PermissionErrorType.allCases[Int(row.reason) - 1],
            locale: locale(row),
            activeHour: row.hour == 0 ? nil : row.hour - 1,
            activityReports: Int(row.activityReports), platform: Self.platform(row.flags),
            funnelMarks: FunnelMarks(rawValue: row.marks), episodeOpening: Self.opening(row.flags),
            push: Self.push(row.activeHour))
    }

    private func group(_ row: Row) -> String? {
        switch row.group {
        case 0: nil
        case Self.overflowedGroup: overflow[row.userID]?.group
        default: groups[row.group]
        }
    }

    private func locale(_ row: Row) -> String? {
        switch row.locale {
        case 0: nil
        case Self.overflowedLocale: overflow[row.userID]?.locale
        default: locales[row.locale]
        }
    }

    /// Calls `body` with every open episode (its start, group, reason, user, funnel steps and
    /// platform), without building the schedules: what `/v1/stats` adds to the closed
    /// episodes.
    func forEachOpenEpisode(_ body: (OpenEpisode) -> Void) {
        for row in rowOf.values {
            let packed = rows[Int(row)]
            guard !packed.episodeStartedAt.isNaN else { continue }
            body(
                OpenEpisode(
                    startedAt: Date(timeIntervalSinceReferenceDate: packed.episodeStartedAt),
                    group: group(packed) ?? Experiment.defaultGroup,
                    reason: packed.reason == 0 ? nil : PermissionErrorType.allCases[Int(packed.reason) - 1],
                    userID: packed.userID, marks: FunnelMarks(rawValue: packed.marks),
                    platform: Self.platform(packed.flags), opening: Self.opening(packed.flags)))
        }
    }

    /// Users by their most active hour of day (those with any activity): what the population's
    /// active hour is taken from.
    func usersByActiveHour() -> [Int] { Array(activeHours[1...]) }
}
