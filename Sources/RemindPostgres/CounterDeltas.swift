import Foundation

/// What a `remindd_users` row counts for in the daemon-wide counts: the columns of
/// `ScheduleColumns` that `/v1/status` counts users by.
struct CountedColumns: Sendable, Equatable {
    var openEpisode: Bool
    var pendingReminder: Bool
    var conditions: Int16
    var activeHour: Int16?

    init(openEpisode: Bool, pendingReminder: Bool, conditions: Int16, activeHour: Int16?) {
        self.openEpisode = openEpisode
        self.pendingReminder = pendingReminder
        self.conditions = conditions
        self.activeHour = activeHour
    }

    init(_ columns: ScheduleColumns) {
        self.init(
            openEpisode: columns.episodeStartedAt != nil, pendingReminder: columns.reminderAt != nil,
            conditions: columns.conditions, activeHour: columns.activeHour)
    }

    /// The columns of `PostgresStateStore.countedColumns`, in its order, as they decode.
    typealias Decoded = (Bool, Bool, Int16, Int16?)

    init(_ decoded: Decoded) {
        self.init(
            openEpisode: decoded.0, pendingReminder: decoded.1, conditions: decoded.2, activeHour: decoded.3)
    }
}

/// Changes to the counter rows (`remindd_counters`) that one transaction makes, summed in
/// memory and written in one statement at its end: the counts of `/v1/status` are kept
/// current with every change instead of counted over every user.
struct CounterDeltas: Sendable {
    static let users = "users"
    static let openEpisodes = "open_episodes"
    static let pendingReminders = "pending_reminders"
    static func conditions(_ value: Int16) -> String { "conditions:\(value)" }
    static let activeHourPrefix = "active_hour:"
    static func activeHour(_ hour: Int16) -> String { activeHourPrefix + "\(hour)" }

    private(set) var values: [String: Int64] = [:]

    var isEmpty: Bool { values.values.allSatisfy { $0 == 0 } }

    mutating func add(_ name: String, _ delta: Int64) {
        values[name, default: 0] += delta
    }

    /// A row that counted as `old` (nil: there was none) now counts as `new` (nil: gone).
    mutating func move(from old: CountedColumns?, to new: CountedColumns?) {
        guard old != new else { return }
        for (columns, sign) in [(old, Int64(-1)), (new, Int64(1))] {
            guard let columns else { continue }
            add(Self.users, sign)
            if columns.openEpisode { add(Self.openEpisodes, sign) }
            if columns.pendingReminder { add(Self.pendingReminders, sign) }
            add(Self.conditions(columns.conditions), sign)
            if let hour = columns.activeHour { add(Self.activeHour(hour), sign) }
        }
    }

    /// The changed counters by name, in name order: every transaction updates its rows in
    /// one order, so two of them cannot deadlock on the counters.
    var sorted: [(name: String, delta: Int64)] {
        values.filter { $0.value != 0 }.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }
}
