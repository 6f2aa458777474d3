import Foundation

/// libFuzzer entry point over RemindCore's decoders of hostile input: a report body as the API
/// receives it, and a user file as the store reads it back from disk (or from the journal).
///
/// Compiled into the RemindCore module itself (`scripts/fuzz-core.sh`), so it sees internal
/// names. Every input goes through every decoder; what decodes is then pushed through the
/// policy and written back, and these properties must hold (a failed one traps, which libFuzzer
/// reports as a crash with the input that caused it):
///
/// - nothing traps (overflow, index out of range, a precondition);
/// - a JSON document the parser accepts is written back by `JSONWriter` as one it reads back
///   equal;
/// - a user record the daemon writes reads back equal, whether it came from a file or from
///   folding a report: otherwise the next start would quarantine a file the daemon wrote itself.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCore(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: data == nil ? 0 : size))
    FuzzCore.parser(bytes)
    FuzzCore.report(bytes)
    FuzzCore.userFile(bytes)
    FuzzCore.userID(bytes)
    return 0
}

enum FuzzCore {
    /// A fixed "now", so a crash replays exactly: 2026-11-22T10:00:00Z.
    static let now = Date(timeIntervalSince1970: 1_795_341_600)

    /// The default policy, and one with every option on, so both code paths are reached.
    static let policies = [
        ReminderPolicy(),
        ReminderPolicy(
            configuration: PolicyConfiguration(
                notification: LocationNotificationConfiguration(
                    showRecurringNotification: true, notificationTriggerDelay: 3600),
                catchUpSpreadSeconds: 600, quietHours: QuietHours(start: 21 * 60, end: 8 * 60), jitterSeconds: 300,
                maxRemindersPerEpisode: 3, heartbeatIntervalSeconds: 21_600, historyMaxEntries: 4,
                closedEpisodesKept: 2)),
    ]

    static func parser(_ bytes: [UInt8]) {
        guard let value = try? JSONParser.parse(bytes) else { return }
        var writer = JSONWriter()
        writer.value(value)
        guard let again = try? JSONParser.parse(writer.bytes) else {
            fatalError("JSONWriter output does not parse: \(String(decoding: writer.bytes, as: UTF8.self))")
        }
        precondition(sameJSON(again, value), "JSON round trip changed \(value) into \(again)")
    }

    /// Equality as JSON means it: `2500`, `2500.0` and `2.5e3` are one number (the writer
    /// prints integral doubles without a fraction).
    static func sameJSON(_ lhs: JSONValue, _ rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.int(let left), .double(let right)), (.double(let right), .int(let left)): return Double(left) == right
        case (.array(let left), .array(let right)):
            return left.count == right.count && zip(left, right).allSatisfy { sameJSON($0, $1) }
        case (.object(let left), .object(let right)):
            return left.members.count == right.members.count
                && zip(left.members, right.members).allSatisfy { $0.key == $1.key && sameJSON($0.value, $1.value) }
        default: return lhs == rhs
        }
    }

    static func report(_ bytes: [UInt8]) {
        guard let report = try? PermissionReport(json: bytes, receivedAt: now) else { return }
        let userID = try! UserID("fuzz-user")
        for policy in policies {
            var record: UserRecord?
            // The same report three times, received a day apart: opens, repeats, and lets the
            // scheduler fire in between.
            for day in 0..<3 {
                let receivedAt = now.addingTimeInterval(Double(day) * 86_400)
                let outcome = policy.apply(report, to: record, userID: userID, receivedAt: receivedAt)
                exercise(outcome.record, policy: policy, now: receivedAt)
                record =
                    policy.fire(outcome.record, now: receivedAt.addingTimeInterval(43_200), daemonStartedAt: now)
                    .record
            }
        }
    }

    static func userFile(_ bytes: [UInt8]) {
        guard let record = try? UserRecord(json: bytes) else { return }
        for policy in policies {
            exercise(record, policy: policy, now: now)
            if let report = try? PermissionReport(
                json: Array(#"{"location":"always","notifications":"authorized"}"#.utf8), receivedAt: now)
            {
                exercise(
                    policy.apply(report, to: record, userID: record.userID, receivedAt: now).record, policy: policy,
                    now: now)
            }
        }
    }

    static func userID(_ bytes: [UInt8]) {
        guard let text = String(validating: bytes, as: UTF8.self) else { return }
        if let id = try? UserID(pathSegment: text) {
            precondition(UserID(fileName: id.fileName) == id, "file name \(id.fileName) does not give back \(id)")
            _ = id.shard
        }
        _ = UserID(fileName: text)
    }

    /// What the daemon does with a record: schedules, explains, fires, and writes it to a file
    /// that must read back the same.
    static func exercise(_ record: UserRecord, policy: ReminderPolicy, now: Date) {
        _ = policy.nextWakeAt(record, daemonStartedAt: now)
        _ = policy.explain(record, now: now, daemonStartedAt: now)
        let fired = policy.fire(record, now: now.addingTimeInterval(30 * 86_400), daemonStartedAt: now)
        for event in fired.events { _ = event.jsonBytes }
        for written in [record, fired.record] {
            let bytes = written.jsonBytes
            let read: UserRecord
            do {
                read = try UserRecord(json: bytes)
            } catch {
                fatalError(
                    "a written user file does not read back (\(error)): \(String(decoding: bytes, as: UTF8.self))")
            }
            precondition(
                read == written, "user file round trip changed the record: \(String(decoding: bytes, as: UTF8.self))")
        }
    }
}
