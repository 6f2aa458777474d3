import Testing

@testable import RemindCore

/// The progress line `remindctl import`, `remindctl export` and `remindd migrate` draw: by a
/// known total, by a fraction known some other way, or by the count alone.
struct ProgressLineTests {
    @Test func aKnownTotalGivesTheBarTheCountAndTheTimeLeft() {
        let line = ProgressLine(noun: "users", total: 10_000)
        #expect(
            line.render(done: 5_000, elapsedSeconds: 2)
                == "[##########..........]  50%  5,000/10,000 users  2,500 users/s  0:02 left")
        // 3/5 of 20 is 12, not the 11 a float 0.6 × 20 floors to.
        #expect(
            ProgressLine(noun: "users", total: 5).render(done: 3, elapsedSeconds: 1).hasPrefix(
                "[" + String(repeating: "#", count: 12) + "........]"))
        #expect(
            line.render(done: 10_000, elapsedSeconds: 4)
                == "[####################]  100%  10,000/10,000 users  2,500 users/s")
    }

    /// A file whose lines are counted as they come: the bar and the time left from the part
    /// of it read.
    @Test func aFractionStandsInForAnUnknownTotal() {
        let line = ProgressLine(noun: "lines", total: nil)
        #expect(
            line.render(done: 250_000, elapsedSeconds: 20, fraction: 0.25)
                == "[#####...............]  25%  250,000 lines  12,500 lines/s  1:00 left")
        #expect(
            line.render(done: 1_000_000, elapsedSeconds: 80, fraction: 1)
                == "[####################]  100%  1,000,000 lines  12,500 lines/s")
        #expect(line.render(done: 42, elapsedSeconds: 1) == "42 lines  42 lines/s")
    }

    @Test func numbersAreGroupedAndTimesAreClockFaces() {
        #expect(ProgressLine.grouped(1_234_567) == "1,234,567")
        #expect(ProgressLine.grouped(-1_000) == "-1,000")
        #expect(ProgressLine.clock(3_725) == "1:02:05")
    }
}
