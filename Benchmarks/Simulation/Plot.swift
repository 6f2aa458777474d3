import Foundation

/// The simulation's figures as one SVG of three panels, made without any library: the share
/// of episodes given to the best variant, the cumulative regret beside the even split's, and
/// the send-time uplift with its 95 % interval.
enum Plot {
    static func svg(_ report: Report, title: String) -> String {
        let width = 900.0
        let panelHeight = 190.0
        let left = 70.0
        let right = 20.0
        let top = 40.0
        let gap = 40.0
        let plotWidth = width - left - right
        let days = Double(max(1, report.rows.count))
        var out = [
            #"<svg xmlns="http://www.w3.org/2000/svg" width="900" height="\#(Int(top + 3 * (panelHeight + gap)))" font-family="sans-serif" font-size="12">"#,
            #"<rect width="100%" height="100%" fill="white"/>"#,
            #"<text x="\#(left)" y="22" font-size="15" font-weight="bold">\#(escape(title))</text>"#,
        ]
        func x(_ day: Double) -> Double { left + (day - 1) / max(1, days - 1) * plotWidth }
        func panel(
            _ index: Int, _ label: String, _ low: Double, _ high: Double, _ ticks: [Double],
            _ format: (Double) -> String
        )
            -> (Double) -> Double
        {
            let y0 = top + Double(index) * (panelHeight + gap)
            let y: (Double) -> Double = { value in y0 + panelHeight - (value - low) / (high - low) * panelHeight }
            out.append(#"<text x="\#(left)" y="\#(y0 - 8)" font-weight="bold">\#(escape(label))</text>"#)
            out.append(
                #"<rect x="\#(left)" y="\#(y0)" width="\#(plotWidth)" height="\#(panelHeight)" fill="none" stroke="gray"/>"#
            )
            for tick in ticks {
                out.append(
                    #"<line x1="\#(left)" x2="\#(left + plotWidth)" y1="\#(y(tick))" y2="\#(y(tick))" stroke="gainsboro"/>"#
                )
                out.append(#"<text x="\#(left - 6)" y="\#(y(tick) + 4)" text-anchor="end">\#(format(tick))</text>"#)
            }
            for day in stride(from: 10, through: Int(days), by: 10) {
                out.append(
                    #"<text x="\#(x(Double(day)))" y="\#(y0 + panelHeight + 14)" text-anchor="middle">day \#(day)</text>"#
                )
            }
            return y
        }
        func line(_ points: [(Double, Double)], _ color: String, dash: Bool = false, width: Double = 2) {
            let path = points.map { String(format: "%.1f,%.1f", $0.0, $0.1) }.joined(separator: " ")
            out.append(
                #"<polyline points="\#(path)" fill="none" stroke="\#(color)" stroke-width="\#(width)"\#(dash ? " stroke-dasharray=\"6 4\"" : "")/>"#
            )
        }
        func legend(_ index: Int, _ items: [(String, String)]) {
            let y0 = top + Double(index) * (panelHeight + gap) + 16
            for (offset, item) in items.enumerated() {
                let lx = left + 12 + Double(offset) * 210
                out.append(
                    #"<line x1="\#(lx)" x2="\#(lx + 24)" y1="\#(y0)" y2="\#(y0)" stroke="\#(item.1)" stroke-width="3"/>"#
                )
                out.append(#"<text x="\#(lx + 30)" y="\#(y0 + 4)">\#(escape(item.0))</text>"#)
            }
        }
        let percent: (Double) -> String = { String(format: "%.0f %%", $0 * 100) }

        let share = panel(
            0, "Share of non-holdout episodes given to the best variant, per day", 0, 1, [0, 0.25, 0.5, 0.8, 1], percent
        )
        line([(x(1), share(0.8)), (x(days), share(0.8))], "crimson", dash: true, width: 1)
        line([(x(30), share(0)), (x(30), share(1))], "gray", dash: true, width: 1)
        line(report.rows.map { (x(Double($0.day)), share($0.shareToBest)) }, "steelblue")
        legend(0, [("to the best variant", "steelblue"), ("goal 80 % after day 30", "crimson")])

        let highest = max(1, report.rows.map(\.evenRegret).max() ?? 1)
        let step = (highest / 4).rounded(.up)
        let regret = panel(
            1, "Cumulative regret (expected resolutions lost against always the best)", 0, highest * 1.05,
            [0, step, 2 * step, 3 * step, 4 * step].filter { $0 <= highest * 1.05 }, { String(format: "%.0f", $0) })
        line(report.rows.map { (x(Double($0.day)), regret($0.evenRegret)) }, "gray")
        line(report.rows.map { (x(Double($0.day)), regret($0.regret)) }, "steelblue")
        legend(1, [("adaptive allocation", "steelblue"), ("fixed even split", "gray")])

        let uplifts = report.rows.compactMap { row in row.upliftCI.map { (row.day, row.uplift!, $0) } }
        let lowest = min(-0.01, uplifts.map(\.2.lowerBound).min() ?? -0.01)
        let upper = max(0.01, uplifts.map(\.2.upperBound).max() ?? 0.01)
        let points: (Double) -> String = { String(format: "%+.1f pts", $0 * 100) }
        let uplift = panel(
            2, "Send-time uplift (active hour − due time), cumulative, with its 95 % interval", lowest, upper,
            [lowest, 0, upper / 2, upper], points)
        if !uplifts.isEmpty {
            let band =
                uplifts.map { (x(Double($0.0)), uplift($0.2.upperBound)) }
                + uplifts.reversed().map { (x(Double($0.0)), uplift($0.2.lowerBound)) }
            let path = band.map { String(format: "%.1f,%.1f", $0.0, $0.1) }.joined(separator: " ")
            out.append(#"<polygon points="\#(path)" fill="seagreen" fill-opacity="0.2" stroke="none"/>"#)
            line(uplifts.map { (x(Double($0.0)), uplift($0.1)) }, "seagreen")
        }
        line([(x(1), uplift(0)), (x(days), uplift(0))], "gray", dash: true, width: 1)
        legend(2, [("uplift", "seagreen"), ("95 % interval", "lightgreen")])
        out.append("</svg>")
        return out.joined(separator: "\n") + "\n"
    }

    private static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
    }
}
