import Foundation

/// One line of progress for a terminal: a bar when the total is known, the count, the rate and
/// the time left, e.g. `[##########..........]  50%  5,000/10,000 users  2,500 users/s  0:02 left`. Pure:
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

    /// `fraction` is how far along the work is when `total` is unknown but something else
    /// tells it (the bytes read of a file whose lines are counted as they come).
    public func render(done: Int, elapsedSeconds: Double, fraction known: Double? = nil) -> String {
        let rate = elapsedSeconds > 0 ? Double(done) / elapsedSeconds : 0
        var parts: [String] = []
        var fraction = known.map { min(1, max(0, $0)) }
        var count = Self.grouped(done)
        if let total, total > 0 {
            fraction = min(1, Double(done) / Double(total))
            // Integer arithmetic: 3/5 of 20 is 12, where a float 0.6 × 20 floors to 11.
            parts.append(bar(filled: min(barWidth, done * barWidth / total)))
            count += "/\(Self.grouped(total))"
        } else if let fraction {
            parts.append(bar(filled: Int((fraction * Double(barWidth)).rounded(.down))))
        }
        if let fraction { parts.append("\(Int((fraction * 100).rounded(.down)))%") }
        parts.append("\(count) \(noun)")
        parts.append("\(Self.grouped(Int(rate.rounded()))) \(noun)/s")
        // What is left at the rate so far: elapsed × (1 − f) / f, which for a known total is
        // (total − done) / rate.
        if let fraction, rate > 0, fraction > 0, fraction < 1 {
            parts.append("\(Self.clock(elapsedSeconds * (1 - fraction) / fraction)) left")
        }
        return parts.joined(separator: "  ")
    }

    private func bar(filled: Int) -> String {
        "[" + String(repeating: "#", count: filled) + String(repeating: ".", count: barWidth - filled) + "]"
    }

    /// `1,234,567`: thousands grouped whatever the locale, as the daemon's messages are.
    public static func grouped(_ value: Int) -> String {
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
