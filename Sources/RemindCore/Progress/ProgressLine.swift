import Foundation

/// One line of progress for a terminal: a bar when the total is known, the count, the rate and
/// the time left, e.g. `[##########..........]  5,000/10,000 users  2,500/s  0:02 left`. Pure:
/// the caller says how far it is and how long it took, and writes the line where it wants.
public struct ProgressLine: Sendable {
    /// What is counted, in the plural (`users`).
    public var noun: String
    /// How many there are in all, when known.
    public var total: Int?
    public var barWidth = 20

    public init(noun: String, total: Int?) {
        self.noun = noun
        self.total = total
    }

    public func render(done: Int, elapsedSeconds: Double) -> String {
        let rate = elapsedSeconds > 0 ? Double(done) / elapsedSeconds : 0
        var parts: [String] = []
        if let total, total > 0 {
            let filled = min(barWidth, done * barWidth / total)
            parts.append(
                "[" + String(repeating: "#", count: filled) + String(repeating: ".", count: barWidth - filled) + "]")
            parts.append("\(Self.grouped(done))/\(Self.grouped(total)) \(noun)")
        } else {
            parts.append("\(Self.grouped(done)) \(noun)")
        }
        parts.append("\(Self.grouped(Int(rate.rounded())))/s")
        if let total, rate > 0, done < total {
            parts.append("\(Self.clock(Double(total - done) / rate)) left")
        }
        return parts.joined(separator: "  ")
    }

    /// `1,234,567`: thousands grouped whatever the locale, as the daemon's messages are.
    static func grouped(_ value: Int) -> String {
        let digits = String(value.magnitude)
        var text = ""
        for (index, digit) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { text.append(",") }
            text.append(digit)
        }
        return value < 0 ? "-" + text : text
    }

    /// `m:ss`, or `h:mm:ss` from an hour.
    static func clock(_ seconds: Double) -> String {
        let total = Int(seconds.rounded(.up))
        let (hours, minutes, secs) = (total / 3600, total / 60 % 60, total % 60)
        let two = { (value: Int) in value < 10 ? "0\(value)" : "\(value)" }
        return hours > 0 ? "\(hours):\(two(minutes)):\(two(secs))" : "\(minutes):\(two(secs))"
    }
}
