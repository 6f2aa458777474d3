import ArgumentParser
import Foundation
import Logging
import RemindConfig
import RemindCore
import RemindDaemon

#if canImport(Glibc)
    import Glibc
#endif

/// `remindd migrate`: moves a whole state from one storage to another while no daemon runs on
/// either (`StateMigration`).
struct MigrateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Copy the whole state of one configuration's storage into another's.",
        discussion: """
            Copies every user (history, episodes, deliveries, device and counters, as stored), \
            the events still waiting for a sink with their ids, the dead letters and the \
            outcomes log from the storage of --from-config to the storage of --to-config: the \
            state directory's files, in any number of parts (storage.parts), or a PostgreSQL \
            database. The source is only read. Stop every remindd using either side first.

            The target must be empty. A migration cut off midway (killed, disk full, database \
            down) leaves a marker in the target; run the same command with --resume to finish \
            it. A daemon does not start on a target that holds the marker.

            Exit codes: 0 done, 1 failed midway (run again with --resume), 78 refused with \
            nothing changed (an invalid configuration, a side in use, a target not empty).

            Examples:
              remindd migrate --from-config /etc/remindd/remindd.json --to-config /etc/remindd/postgres.json
              remindd migrate --from-config old.json --to-config four-parts.json --resume
            """)

    @Option(name: .long, help: ArgumentHelp("The configuration whose storage is copied.", valueName: "file"))
    var fromConfig: String

    @Option(name: .long, help: ArgumentHelp("The configuration whose storage receives the copy.", valueName: "file"))
    var toConfig: String

    @Flag(name: .long, help: "Finish a migration into the same target that was cut off.")
    var resume = false

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Users and events copied per step (default 1000); the marker moves on after each step.",
            valueName: "n"))
    var batch = 1_000

    func validate() throws {
        guard (1...100_000).contains(batch) else { throw ValidationError("--batch must be from 1 to 100000") }
    }

    func run() async throws {
        let source = Self.load(fromConfig, flag: "--from-config")
        let target = Self.load(toConfig, flag: "--to-config")
        // What the stores report (a quarantined file, a damaged log) goes to standard error.
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = .warning
            return handler
        }
        let logger = Logger(label: "remindd-migrate")
        let meter = MigrationProgress()
        let started = ContinuousClock.now
        var migration = StateMigration(source: source, target: target, resume: resume, logger: logger)
        migration.batch = batch
        do {
            let summary = try await migration.run { phase, done, total in meter.show(phase, done: done, total: total) }
            meter.finish()
            let elapsed = ContinuousClock.now - started
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            print(
                "migrated \(summary.users) users, \(summary.events) pending events, \(summary.deadLetters) dead letters and \(summary.outcomes) closed episodes in \(String(format: "%.1f", seconds)) s"
            )
        } catch {
            meter.finish()
            FileHandle.standardError.write(Data("remindd migrate: \(error.description)\n".utf8))
            Foundation.exit(error.exitCode)
        }
    }

    /// A configuration as the daemon would read it, without the environment's overrides (they
    /// would apply to both sides alike); invalid: its key path and reason, exit 78.
    static func load(_ path: String, flag: String) -> DaemonConfiguration {
        do {
            return try ConfigurationLoader.load(
                path: path, environment: [:], stateDirectoryFlag: nil, socketFlag: nil, defaults: .system)
        } catch {
            // The loader's message starts with "remindd: ", then the file and the key path.
            let message =
                error.description.hasPrefix("remindd: ") ? String(error.description.dropFirst(9)) : error.description
            FileHandle.standardError.write(Data("remindd migrate: \(flag) \(message)\n".utf8))
            Foundation.exit(78)
        }
    }
}

/// One `ProgressMeter` per phase of the copy, on standard error when it is a terminal.
private final class MigrationProgress: @unchecked Sendable {
    // The migration reports from one task, one call after another.
    private var phase: String?
    private var meter: ProgressMeter?

    func show(_ phase: String, done: Int, total: Int?) {
        if phase != self.phase {
            meter?.finish()
            self.phase = phase
            meter = ProgressMeter(noun: phase, total: total)
        }
        guard let meter else { return }
        meter.setTotal(total)
        meter.advance(by: done - meter.done)
    }

    func finish() {
        meter?.finish()
        meter = nil
        phase = nil
    }
}
