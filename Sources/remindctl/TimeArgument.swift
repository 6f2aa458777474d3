import ArgumentParser
import Foundation
import RemindCore

/// An instant on the command line: an RFC 3339 timestamp (`2026-11-23T00:00:00Z`, any offset)
/// or a span from now (`90s`, `30m`, `12h`, `7d`), which is what an operator usually means by
/// "due within the week".
struct TimeArgument: ExpressibleByArgument {
    let date: Date

    init?(argument: String) {
        self.init(argument, now: Date())
    }

    init?(_ text: String, now: Date) {
        if let date = RFC3339.parse(text) {
            self.date = date
            return
        }
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3_600, "d": 86_400]
        guard let unit = text.last.flatMap({ units[$0] }), let count = Int(text.dropLast()), count >= 0 else {
            return nil
        }
        date = now.addingTimeInterval(Double(count) * unit)
    }

    static var defaultCompletionKind: CompletionKind { .default }
}
