import Foundation
import RemindCore

extension Snapshot {
    /// What can be taken from a damaged outbox file: every event and dead letter line that
    /// still decodes, and how many lines did not.
    static func salvage(
        _ bytes: [UInt8]
    ) -> (events: [(OutboxEvent, [String])], deadLetters: [DeadLetterRecord], lost: Int) {
        var events: [(OutboxEvent, [String])] = []
        var deadLetters: [DeadLetterRecord] = []
        var lost = 0
        let sealed = Snapshot.formats.dropFirst().contains { bytes.starts(with: "\(Snapshot.header)\t\($0)\t".utf8) }
        for whole in bytes.split(separator: UInt8(ascii: "\n")) {
            if whole.starts(with: Snapshot.header.utf8) || whole.starts(with: "END\t".utf8) { continue }
            // In a file whose lines carry checksums, a line without a good one is not trusted
            // even if it decodes: the damage may sit in its data.
            guard let line = sealed ? (Checksum.isSealed(whole) ? Checksum.verified(whole) : nil) : whole else {
                lost += 1
                continue
            }
            switch outboxLine(line.split(separator: UInt8(ascii: "\t"), omittingEmptySubsequences: false)) {
            case .event(let event, let sinks): events.append((event, sinks))
            case .deadLetter(let letter): deadLetters.append(letter)
            case nil: lost += 1
            }
        }
        return (events, deadLetters, lost)
    }

    /// An `E` or `X` line of the outbox file, split at its tabs.
    enum OutboxLine {
        case event(OutboxEvent, sinks: [String])
        case deadLetter(DeadLetterRecord)
    }

    /// Decodes an `E` or `X` line; nil for anything else.
    static func outboxLine(_ fields: [ArraySlice<UInt8>]) -> OutboxLine? {
        if fields.first?.elementsEqual("E".utf8) == true, fields.count == 3,
            let event = try? OutboxEvent(bytes: fields[2])
        {
            return .event(
                event, sinks: fields[1].split(separator: UInt8(ascii: ",")).map { String(decoding: $0, as: UTF8.self) })
        }
        if fields.first?.elementsEqual("X".utf8) == true, fields.count == 2,
            case .object(let object)? = try? JSONParser.parse(fields[1]),
            let letter = DeadLetterRecord(object: object)
        {
            return .deadLetter(letter)
        }
        return nil
    }
}
