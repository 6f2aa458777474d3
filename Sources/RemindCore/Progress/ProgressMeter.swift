import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A `ProgressLine` kept current on standard error while a long command runs — only when
/// standard error is a terminal, so logs and pipes get nothing but the final summary. Redrawn
/// in place at most ten times a second; `finish` leaves the last line standing.
public final class ProgressMeter: @unchecked Sendable {
    // Used from one thread at a time: the command's own loop, or the client thread that
    // hands it the stream's parts one after another.
    private var line: ProgressLine
    private let enabled: Bool
    private let started = ContinuousClock.now
    private var lastDrawn: ContinuousClock.Instant?
    private var width = 0
    public private(set) var done = 0
    /// How far along, when the total is unknown (`ProgressLine.render`'s `fraction`).
    private var fraction: Double?

    public init(noun: String, total: Int?, enabled: Bool = isatty(STDERR_FILENO) == 1) {
        line = ProgressLine(noun: noun, total: total)
        self.enabled = enabled
    }

    public var isEnabled: Bool { enabled }

    public func setTotal(_ total: Int?) { line.total = total }

    /// Counts `count` more done, and redraws when the last drawing is 100 ms old.
    public func advance(by count: Int, fraction: Double? = nil) {
        done += count
        if let fraction { self.fraction = fraction }
        guard enabled else { return }
        let now = ContinuousClock.now
        if let lastDrawn, now - lastDrawn < .milliseconds(100) { return }
        lastDrawn = now
        draw()
    }

    /// The last drawing, with a newline after it.
    public func finish() {
        guard enabled else { return }
        draw()
        FileHandle.standardError.write(Data("\n".utf8))
    }

    private func draw() {
        let elapsed = ContinuousClock.now - started
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let text = line.render(done: done, elapsedSeconds: seconds, fraction: fraction)
        // Spaces over what a longer line left behind.
        let padding = String(repeating: " ", count: max(0, width - text.count))
        width = text.count
        FileHandle.standardError.write(Data(("\r" + text + padding).utf8))
    }
}
