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
///     remindd-snapshot	1	<first log segment to replay>
///     U	<id>	<reason|->	<deliverable 0|1>	<zone|->	<episode start ms|->	<delivered>	<last delivery ms|->	<suppressed 0|1>	<last report ms>	<heartbeat ms|->
///     E	<sink,sink>	<event JSON>
///     X	<dead letter JSON>
///     END	<lines>
///
/// The END line proves the file complete; a file without it is ignored.
struct Snapshot {
    static let fileName = "snapshot.tsv"
    static let outboxFileName = "outbox.tsv"
    static let header = "remindd-snapshot"

    var segment: UInt64
    var schedules: [UserSchedule]
    var events: [(event: OutboxEvent, sinks: [String])]
    var deadLetters: [DeadLetterRecord] = []

    /// `snapshot.tsv` (the schedules) and `outbox.tsv` (the events).
    func encoded() -> (schedules: [UInt8], outbox: [UInt8]) {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(64 + schedules.count * 96)
        func append(_ text: String) { bytes.append(contentsOf: text.utf8) }
        func millis(_ date: Date?) -> String {
            date.map { String(Int64(($0.timeIntervalSince1970 * 1000).rounded())) } ?? "-"
        }
        append("\(Self.header)\t1\t\(segment)\n")
        for schedule in schedules {
            append("U\t")
            append(schedule.userID.rawValue)
            append("\t\(schedule.reason?.rawValue ?? "-")\t\(schedule.notificationsDeliverable ? 1 : 0)\t")
            append(schedule.timeZone ?? "-")
            append("\t\(millis(schedule.episodeStartedAt))\t\(schedule.deliveredCount)\t")
            append("\(millis(schedule.lastDeliveredAt))\t\(schedule.isSuppressed ? 1 : 0)\t")
            append("\(millis(schedule.lastReportAt))\t\(millis(schedule.lastHeartbeatAt))\n")
        }
        append("END\t\(schedules.count)\n")
        let scheduleBytes = bytes
        bytes = []
        bytes.reserveCapacity(64 + events.count * 400)
        append("\(Self.header)\t1\t\(segment)\n")
        for (event, sinks) in events {
            append("E\t\(sinks.joined(separator: ","))\t")
            bytes.append(contentsOf: event.bytes)
            bytes.append(UInt8(ascii: "\n"))
        }
        for letter in deadLetters {
            append("X\t")
            bytes.append(contentsOf: letter.jsonBytes)
            bytes.append(UInt8(ascii: "\n"))
        }
        append("END\t\(events.count + deadLetters.count)\n")
        return (scheduleBytes, bytes)
    }

    /// Decodes either file (or both concatenated); nil when it is missing its END line or any
    /// line is malformed.
    init?(bytes: [UInt8]) {
        var lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        if lines.last?.isEmpty == true { lines.removeLast() }
        guard let first = lines.first, let last = lines.last else { return nil }
        let headerFields = first.split(separator: UInt8(ascii: "\t"))
        guard headerFields.count == 3, String(decoding: headerFields[0], as: UTF8.self) == Self.header,
            String(decoding: headerFields[1], as: UTF8.self) == "1",
            let segment = UInt64(String(decoding: headerFields[2], as: UTF8.self))
        else { return nil }
        let endFields = last.split(separator: UInt8(ascii: "\t")).map { String(decoding: $0, as: UTF8.self) }
        guard endFields.count == 2, endFields[0] == "END", let count = Int(endFields[1]), lines.count == count + 2
        else { return nil }

        func millis(_ field: ArraySlice<UInt8>) -> Date?? {
            if field.count == 1 && field.first == UInt8(ascii: "-") { return .some(nil) }
            var value: Int64 = 0
            var negative = false
            for (offset, byte) in field.enumerated() {
                if offset == 0 && byte == UInt8(ascii: "-") {
                    negative = true
                    continue
                }
                guard byte >= 48 && byte <= 57 else { return nil }
                value = value * 10 + Int64(byte - 48)
            }
            return .some(Date(timeIntervalSince1970: Double(negative ? -value : value) / 1000))
        }
        var schedules: [UserSchedule] = []
        schedules.reserveCapacity(count)
        var events: [(OutboxEvent, [String])] = []
        var deadLetters: [DeadLetterRecord] = []
        for line in lines[1..<(lines.count - 1)] {
            let fields = line.split(separator: UInt8(ascii: "\t"), omittingEmptySubsequences: false)
            if fields.first?.elementsEqual("U".utf8) == true {
                guard fields.count == 11, let userID = try? UserID(String(decoding: fields[1], as: UTF8.self)),
                    let start = millis(fields[5]), let count = Int(String(decoding: fields[6], as: UTF8.self)),
                    let lastDelivery = millis(fields[7]), let lastReport = millis(fields[9]),
                    let lastReportAt = lastReport, let heartbeat = millis(fields[10])
                else { return nil }
                let reasonText = String(decoding: fields[2], as: UTF8.self)
                let zone = String(decoding: fields[4], as: UTF8.self)
                schedules.append(
                    UserSchedule(
                        userID: userID,
                        reason: reasonText == "-" ? nil : PermissionErrorType(rawValue: reasonText),
                        notificationsDeliverable: fields[3].first == UInt8(ascii: "1"),
                        timeZone: zone == "-" ? nil : zone,
                        episodeStartedAt: start, deliveredCount: count, lastDeliveredAt: lastDelivery,
                        isSuppressed: fields[8].first == UInt8(ascii: "1"), lastReportAt: lastReportAt,
                        lastHeartbeatAt: heartbeat))
            } else if fields.first?.elementsEqual("X".utf8) == true, fields.count == 2,
                case .object(let object)? = try? JSONParser.parse(fields[1]),
                let letter = DeadLetterRecord(object: object)
            {
                deadLetters.append(letter)
            } else if fields.first?.elementsEqual("E".utf8) == true, fields.count == 3,
                let event = try? OutboxEvent(bytes: fields[2])
            {
                let sinks = fields[1].split(separator: UInt8(ascii: ",")).map { String(decoding: $0, as: UTF8.self) }
                events.append((event, sinks))
            } else {
                return nil
            }
        }
        self.segment = segment
        self.schedules = schedules
        self.events = events
        self.deadLetters = deadLetters
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
