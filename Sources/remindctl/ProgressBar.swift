import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A one-line progress display on standard error, redrawn in place: lines done, lines per
/// second and, when the input's size is known, a bar and the time left. Drawn only when
/// standard error is a terminal, at most a few times a second.
struct ProgressBar {
    /// What is drawn, from the figures alone (no clock, no I/O), so it can be tested.
    static func render(lines: Int, seconds: Double, fraction: Double?, width: Int = 24) -> String {
        let rate = seconds > 0 ? Double(lines) / seconds : 0
        var text = ""
        if let fraction {
            let clamped = min(1, max(0, fraction))
            let filled = Int((clamped * Double(width)).rounded(.down))
            text += "[" + String(repeating: "#", count: filled) + String(repeating: " ", count: width - filled) + "] "
            text += "\(Int((clamped * 100).rounded(.down)))% "
        }
        text += "\(grouped(lines)) lines, \(grouped(Int(rate.rounded()))) lines/s"
        if let fraction, fraction > 0, fraction < 1, seconds > 0 {
            text += ", \(duration(seconds * (1 - fraction) / fraction)) left"
        }
        return text
    }

    /// `1,234,567`.
    static func grouped(_ value: Int) -> String {
        let digits = Array(String(value))
        var text = ""
        for (index, digit) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { text.append(",") }
            text.append(digit)
        }
        return text
    }

    /// `42s`, `3m05s`, `1h02m`.
    static func duration(_ seconds: Double) -> String {
        let total = Int(seconds.rounded(.up))
        if total < 60 { return "\(total)s" }
        if total < 3600 { return String(format: "%dm%02ds", total / 60, total % 60) }
        return String(format: "%dh%02dm", total / 3600, (total % 3600) / 60)
    }

    let enabled: Bool
    private let started: ContinuousClock.Instant
    private var lastDrawn: ContinuousClock.Instant?

    init(enabled: Bool = isatty(STDERR_FILENO) == 1) {
        self.enabled = enabled
        started = .now
    }

    /// Redraws when the last drawing is at least 100 ms old (or `force`).
    mutating func update(lines: Int, fraction: Double?, force: Bool = false) {
        guard enabled else { return }
        let now = ContinuousClock.now
        if !force, let lastDrawn, now - lastDrawn < .milliseconds(100) { return }
        lastDrawn = now
        let elapsed = now - started
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let text = Self.render(lines: lines, seconds: seconds, fraction: fraction)
        FileHandle.standardError.write(Data(("\r\u{1B}[2K" + text).utf8))
    }

    /// Clears the line, so what follows starts on a clean one.
    func finish() {
        guard enabled, lastDrawn != nil else { return }
        FileHandle.standardError.write(Data("\r\u{1B}[2K".utf8))
    }
}
