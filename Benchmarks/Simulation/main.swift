import Foundation

// W9 (Benchmarks/README.md): adaptive allocation and send time on a simulated population.
//
//   remind-simulation [--users N] [--days N] [--seed N] [--svg FILE] [--table FILE] [--funnel FILE]
//
// The population is simulated twice: with asks in the app, and the same again without them
// (the comparison that gives the in-app uplift).
//
// Prints the per-day table, then one JSON line with the figures against the goals (what
// bench.py reads). The users are made up: this tests the mechanism, not real behaviour.

var settings = Simulation.Settings()
var svgPath: String?
var tablePath: String?
var funnelPath: String?
var arguments = CommandLine.arguments.dropFirst()
while let flag = arguments.popFirst() {
    guard let value = arguments.popFirst() else {
        FileHandle.standardError.write(Data("remind-simulation: \(flag) needs a value\n".utf8))
        exit(2)
    }
    switch flag {
    case "--users": settings.users = Int(value) ?? settings.users
    case "--days": settings.days = Int(value) ?? settings.days
    case "--seed": settings.seed = UInt64(value) ?? settings.seed
    case "--svg": svgPath = value
    case "--table": tablePath = value
    case "--funnel": funnelPath = value
    default:
        FileHandle.standardError.write(Data("remind-simulation: unknown option \(flag)\n".utf8))
        exit(2)
    }
}

let began = Date()
var simulation = Simulation(settings: settings)
simulation.run()
let seconds = Date().timeIntervalSince(began)
var controlSettings = settings
controlSettings.inApp = false
var control = Simulation(settings: controlSettings)
control.run()
let report = Report(simulation)
let table = report.table()
print(table)
if let tablePath { try table.write(toFile: tablePath, atomically: true, encoding: .utf8) }
if let svgPath {
    let title =
        "W9: \(settings.users.formatted()) simulated users, \(settings.days) days (hidden rates "
        + settings.resolution.sorted { $0.value < $1.value }.map { "\($0.key) \(Int(($0.value * 100).rounded())) %" }
        .joined(separator: ", ") + ")"
    try Plot.svg(report, title: title).write(toFile: svgPath, atomically: true, encoding: .utf8)
}
for goal in report.goals { print("\(goal.met ? "met" : "NOT MET"): \(goal.name)") }
let funnelTable = Report.funnelTable(simulation)
if let funnelPath { try funnelTable.write(toFile: funnelPath, atomically: true, encoding: .utf8) }
if let uplift = Report.inAppUplift(simulation, control: control) {
    print(
        String(
            format:
                "in-app asks: resolution %.2f %% against %.2f %% without, uplift %+.2f pts (95 %% CI %+.2f … %+.2f)",
            uplift.rates.0 * 100, uplift.rates.1 * 100, uplift.value * 100, uplift.interval.lowerBound * 100,
            uplift.interval.upperBound * 100))
}
print(report.json(seconds: seconds, simulation: simulation, control: control))
