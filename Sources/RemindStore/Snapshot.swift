import Foundation
import RemindCore

#if canImport(Glibc)
    import Glibc
#endif

/// The compact start-up snapshot, as of a write-ahead log segment, in two files written at
/// the same checkpoint: `snapshot.tsv`, every user's `UserSchedule`, and `outbox.tsv`, the
/// events not yet done. Start-up reads them in one sequential pass each and replays only the
/// log from that segment, instead of reading a million user files (about 90 s cold here).
///
/// The outbox has a file of its own because nothing else holds those events once the log
/// segments are gone: without `snapshot.tsv` start-up scans the user files, but the pending
/// events must still come back.
///
/// Tab-separated lines, because they parse several times faster than JSON objects:
///
///     remindd-snapshot	6	<first log segment to replay>
///     U	<id>	<errors>	<deliverable 0|1>	<zone|->	<episode start ms|->	<delivered>	<last delivery ms|->	<suppressed 0|1>	<last report ms>	<heartbeat ms|->	<conditions>	<episode group|->	<episode reason|->	<locale|->	<active hour|->	<activity reports>	<platform|->	<funnel marks>	<opening|->	<push apns|fcm, ! when unreachable|->
///     E	<sink,sink>	<event JSON>
///     X	<dead letter JSON>
///     END	<lines>	<checksum of every byte before this line>
///
/// The END line proves the file complete and its checksum that nothing in it changed since
/// (format 1, from before the checksum, is still read). `errors` and `conditions` are the
/// bit sets `PermissionErrorSet` and `ServiceConditions` in decimal. Formats 1 and 2 kept a
/// reason instead and no conditions, format 3 no episode group, format 4 no locale, format 5
/// no activity (the send time's active hour and the reports behind it), format 6 no platform,
/// funnel marks, opening and push address: their user
/// lines are not read (`schedulesOutdated`), and
/// start-up reads the user files once instead. The files are replaced whole, so a
/// file that fails either check is damaged, not half-written: start-up quarantines it and says
/// so (`SnapshotDamage`).
struct Snapshot {
    static let fileName = "snapshot.tsv"
    static let outboxFileName = "outbox.tsv"
    static let header = "remindd-snapshot"
    /// The format written; user lines of any other are not read.
    static let format = "7"
    /// Every format read; all but the first end each outbox line with a checksum.
    static let formats = ["1", "2", "3", "4", "5", "6", format]

    var segment: UInt64
    /// The schedules to write (empty when read: a file's user lines go into `table`).
    var schedules: [UserSchedule]
    /// The schedules read.
    var table = PackedSchedules()
    var events: [(event: OutboxEvent, sinks: [String])]
    var deadLetters: [DeadLetterRecord] = []
    /// The file is of a format whose user lines lack what the schedules need now.
    var schedulesOutdated = false

    /// `snapshot.tsv` (the schedules) and `outbox.tsv` (the events).
    func encoded() -> (schedules: [UInt8], outbox: [UInt8]) {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(64 + schedules.count * 96)
        func append(_ text: String) { bytes.append(contentsOf: text.utf8) }
        func millis(_ date: Date?) -> String {
            date.map { String(Int64(($0.timeIntervalSince1970 * 1000).rounded())) } ?? "-"
        }
        func end(_ count: Int) {
            let checksum = Checksum.hex(Checksum.of(bytes[...]))
            append("END\t\(count)\t")
            bytes.append(contentsOf: checksum)
            bytes.append(UInt8(ascii: "\n"))
        }
        append("\(Self.header)\t\(Self.format)\t\(segment)\n")
        for schedule in schedules {
            append("U\t")
            append(schedule.userID.rawValue)
            append("\t\(schedule.errors.rawValue)\t\(schedule.notificationsDeliverable ? 1 : 0)\t")
            append(schedule.timeZone ?? "-")
            append("\t\(millis(schedule.episodeStartedAt))\t\(schedule.deliveredCount)\t")
            append("\(millis(schedule.lastDeliveredAt))\t\(schedule.isSuppressed ? 1 : 0)\t")
            append("\(millis(schedule.lastReportAt))\t\(millis(schedule.lastHeartbeatAt))\t")
            append("\(schedule.conditions.rawValue)\t")
            append(schedule.episodeGroup ?? "-")
            append("\t\(schedule.episodeReason?.rawValue ?? "-")\t")
            append(schedule.locale ?? "-")
            append("\t\(schedule.activeHour.map(String.init) ?? "-")\t\(schedule.activityReports)\t")
            append(schedule.platform?.rawValue ?? "-")
            append("\t\(schedule.funnelMarks.rawValue)\t")
            append(schedule.episodeOpening?.rawValue ?? "-")
            append("\t")
            // The push address as `apns`/`fcm`, with `!` when unreachable; never the token.
            append(schedule.push.map { $0.service.rawValue + ($0.isReachable ? "" : "!") } ?? "-")
            append("\n")
        }
        end(schedules.count)
        let scheduleBytes = bytes
        bytes = []
        bytes.reserveCapacity(64 + events.count * 400)
        append("\(Self.header)\t\(Self.format)\t\(segment)\n")
        // Event lines carry a checksum each as well, so that from a damaged file the lines
        // that are still intact can be told from those that merely still decode.
        for (event, sinks) in events {
            Checksum.appendLine(Array("E\t\(sinks.joined(separator: ","))\t".utf8)[...] + event.bytes[...], to: &bytes)
            bytes.append(UInt8(ascii: "\n"))
        }
        for letter in deadLetters {
            Checksum.appendLine(Array("X\t".utf8)[...] + letter.jsonBytes[...], to: &bytes)
            bytes.append(UInt8(ascii: "\n"))
        }
        end(events.count + deadLetters.count)
        return (scheduleBytes, bytes)
    }

    /// Decodes either file; throws what is wrong with a damaged one. User lines go straight
    /// into `table`.
    init(bytes: [UInt8]) throws(SnapshotDamage) {
        // Line boundaries first, as ranges (splitting a million lines into slices of the array
        // paid a reference count per line), then the END line, whose checksum covers the rest.
        var lines: [Range<Int>] = []
        bytes.withUnsafeBufferPointer { (buffer: UnsafeBufferPointer<UInt8>) -> Void in
            guard let base = buffer.baseAddress else { return }
            var start = 0
            while start < buffer.count {
                var end = buffer.count
                if let found = memchr(base + start, Int32(UInt8(ascii: "\n")), buffer.count - start) {
                    end = UnsafeRawPointer(found) - UnsafeRawPointer(base)
                }
                lines.append(start..<end)
                start = end + 1
            }
        }
        guard let first = lines.first.map({ bytes[$0] }), let lastRange = lines.last else {
            throw SnapshotDamage("the file is empty")
        }
        let last = bytes[lastRange]
        let headerFields = first.split(separator: UInt8(ascii: "\t"))
        guard headerFields.count == 3, String(decoding: headerFields[0], as: UTF8.self) == Self.header,
            let segment = UInt64(String(decoding: headerFields[2], as: UTF8.self))
        else { throw SnapshotDamage("the first line is not a snapshot header") }
        let version = String(decoding: headerFields[1], as: UTF8.self)
        guard Self.formats.contains(version) else {
            throw SnapshotDamage("unknown format \(version)")
        }
        let endFields = last.split(separator: UInt8(ascii: "\t"))
        guard endFields.count == (version == "1" ? 2 : 3), endFields[0].elementsEqual("END".utf8),
            let count = Int(String(decoding: endFields[1], as: UTF8.self))
        else { throw SnapshotDamage("the END line is missing or malformed") }
        // The checksum first: it names any damage, including damage that merges or splits lines.
        if version != "1" {
            let computed = Checksum.of(bytes[..<lastRange.lowerBound])
            guard Checksum.parse(endFields[2]) == computed else {
                throw SnapshotDamage("checksum mismatch (the file changed after it was written)")
            }
        }
        guard lines.count == count + 2 else {
            throw SnapshotDamage("the END line counts \(count) lines, the file has \(lines.count - 2)")
        }
        var table = PackedSchedules()
        table.reserveCapacity(count)
        var events: [(OutboxEvent, [String])] = []
        var deadLetters: [DeadLetterRecord] = []
        var schedulesOutdated = false
        try bytes.withUnsafeBufferPointer { buffer throws(SnapshotDamage) in
            var fields: [Range<Int>] = []
            fields.reserveCapacity(16)
            for range in lines.dropFirst().dropLast() {
                if buffer[range.lowerBound] == UInt8(ascii: "U") {
                    if version == Self.format {
                        try Self.readUser(buffer, range, fields: &fields, into: &table)
                    } else {
                        schedulesOutdated = true
                    }
                    continue
                }
                let sealed = bytes[range]
                guard let line = version == "1" ? sealed : Checksum.verified(sealed) else {
                    throw SnapshotDamage("an event line fails its checksum")
                }
                switch Self.outboxLine(line.split(separator: UInt8(ascii: "\t"), omittingEmptySubsequences: false)) {
                case .event(let event, let sinks): events.append((event, sinks))
                case .deadLetter(let letter): deadLetters.append(letter)
                case nil: throw SnapshotDamage("a line is malformed")
                }
            }
        }
        self.segment = segment
        self.schedules = []
        self.table = table
        self.events = events
        self.deadLetters = deadLetters
        self.schedulesOutdated = schedulesOutdated
    }

    /// Reads a `U` line of the current format into the table.
    private static func readUser(
        _ buffer: UnsafeBufferPointer<UInt8>, _ line: Range<Int>, fields: inout [Range<Int>],
        into table: inout PackedSchedules
    ) throws(SnapshotDamage) {
        fields.removeAll(keepingCapacity: true)
        var start = line.lowerBound
        for index in line where buffer[index] == UInt8(ascii: "\t") {
            fields.append(start..<index)
            start = index + 1
        }
        fields.append(start..<line.upperBound)
        let malformed = SnapshotDamage("a user line is malformed")
        guard fields.count == 21 else { throw malformed }
        func field(_ index: Int) -> Slice<UnsafeBufferPointer<UInt8>> { buffer[fields[index]] }
        func optional(_ index: Int) -> Slice<UnsafeBufferPointer<UInt8>>? {
            let value = field(index)
            return value.count == 1 && value.first == UInt8(ascii: "-") ? nil : value
        }
        /// Milliseconds since 1970 as `PackedSchedules` keeps a date (NaN for `-`); nil if malformed.
        func millis(_ index: Int) -> Double? {
            guard let value = optional(index) else { return .nan }
            var number: Int64 = 0
            var negative = false
            for (offset, byte) in value.enumerated() {
                if offset == 0 && byte == UInt8(ascii: "-") {
                    negative = true
                    continue
                }
                guard byte >= 48 && byte <= 57, number < Int64.max / 10 else { return nil }
                number = number * 10 + Int64(byte - 48)
            }
            // Exactly the instant `encoded` wrote, as `Date` computes it.
            return Date(timeIntervalSince1970: Double(negative ? -number : number) / 1000)
                .timeIntervalSinceReferenceDate
        }
        func small(_ index: Int) -> Int? {
            let value = field(index)
            guard !value.isEmpty, value.count <= 9 else { return nil }
            var number = 0
            for byte in value {
                guard byte >= 48 && byte <= 57 else { return nil }
                number = number * 10 + Int(byte - 48)
            }
            return number
        }
        guard let userID = try? UserID(String(decoding: field(1), as: UTF8.self)),
            let errors = small(2).flatMap(UInt8.init(exactly:)),
            let conditions = small(11).flatMap(UInt8.init(exactly:)),
            let delivered = small(6).flatMap(Int32.init(exactly:)),
            let start = millis(5), let lastDelivery = millis(7), let lastReport = millis(9), !lastReport.isNaN,
            let heartbeat = millis(10)
        else { throw malformed }
        var activeHour: UInt8 = 0
        if optional(15) != nil {
            guard let hour = small(15), hour < 24 else { throw malformed }
            activeHour = UInt8(hour + 1)
        }
        guard let activityReports = small(16).flatMap(UInt8.init(exactly:)) else { throw malformed }
        var platform: ReportedPlatform?
        if let name = optional(17) {
            guard let known = ReportedPlatform.allCases.first(where: { $0.rawValue.utf8.elementsEqual(name) }) else {
                throw malformed
            }
            platform = known
        }
        guard let marks = small(18).flatMap(UInt8.init(exactly:)) else { throw malformed }
        var push: PushReach?
        if var name = optional(20) {
            let unreachable = name.last == UInt8(ascii: "!")
            if unreachable { name = name.dropLast() }
            guard let service = PushService.allCases.first(where: { $0.rawValue.utf8.elementsEqual(name) }) else {
                throw malformed
            }
            push = PushReach(service: service, isReachable: !unreachable)
        }
        var opening: Episode.Opening?
        if let name = optional(19) {
            guard let known = Episode.Opening.allCases.first(where: { $0.rawValue.utf8.elementsEqual(name) }) else {
                throw malformed
            }
            opening = known
        }
        var reason: PermissionErrorType?
        if let name = optional(13) {
            guard let known = PermissionErrorType.allCases.first(where: { $0.rawValue.utf8.elementsEqual(name) })
            else { throw malformed }
            reason = known
        }
        table.load(
            userID, errors: errors, conditions: conditions, deliverable: field(3).first == UInt8(ascii: "1"),
            suppressed: field(8).first == UInt8(ascii: "1"), zone: optional(4), episodeStartedAt: start,
            deliveredCount: delivered, lastDeliveredAt: lastDelivery, lastReportAt: lastReport,
            lastHeartbeatAt: heartbeat, group: optional(12), reason: reason, locale: optional(14),
            activeHour: activeHour, activityReports: activityReports, platform: platform,
            marks: FunnelMarks(rawValue: marks), opening: opening, push: push)
    }

    init(
        segment: UInt64, schedules: [UserSchedule], events: [(event: OutboxEvent, sinks: [String])],
        deadLetters: [DeadLetterRecord] = []
    ) {
        self.segment = segment
        self.schedules = schedules
        self.events = events
        self.deadLetters = deadLetters
    }
}

/// Why a snapshot file could not be read.
struct SnapshotDamage: Error, CustomStringConvertible {
    var description: String

    init(_ description: String) {
        self.description = description
    }
}
