import ArgumentParser
import CRemindSys
import CoreMetrics
import Foundation
import Logging
import RemindConfig
import RemindDaemon
import Systemd

#if canImport(Glibc)
    import Glibc
#endif

/// remindd: reminds mobile users to grant Always location access.
@main
struct Remindd: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remindd",
        abstract: "Reminds mobile users to grant Always location access.",
        discussion: """
            Reads /etc/remindd/remindd.json (or --config / $REMINDD_CONFIG). Run by hand, with no
            configuration, it keeps its state in $XDG_STATE_HOME/remindd (or ./.remindd) and
            listens on $XDG_RUNTIME_DIR/remindd.sock (or ./remindd.sock).

            remindd migrate copies the whole state to another storage (see remindd migrate --help).
            """,
        version: DaemonRuntime.version,
        subcommands: [MigrateCommand.self])

    @Option(name: .long, help: "The configuration file.")
    var config: String?

    @Option(name: .long, help: "The state directory (overrides the file and $REMINDD_STATE_DIRECTORY).")
    var stateDirectory: String?

    @Option(name: .long, help: "The Unix socket path (overrides the file and $REMINDD_SOCKET).")
    var socket: String?

    func run() async throws {
        // Start-up reads a snapshot of ~90 bytes per user into buffers of tens of megabytes.
        // Freeing such a block makes glibc raise its mmap threshold (and its trim threshold with
        // it) up to 32 MiB, after which same-sized blocks come from a thread's arena, whose free
        // top is then kept: 33 MB for good at a million users (`make bench` W3). A fixed
        // threshold keeps every block of 1 MiB or more in pages of its own, given back when freed.
        _ = remindsys_fix_mmap_threshold(1 << 20)
        let environment = ProcessInfo.processInfo.environment
        let defaults = ConfigurationLoader.Defaults.detect(
            environment: environment, currentDirectory: FileManager.default.currentDirectoryPath)
        let load: @Sendable () throws(ConfigurationError) -> DaemonConfiguration = {
            [config, stateDirectory, socket] () throws(ConfigurationError) -> DaemonConfiguration in
            try ConfigurationLoader.load(
                path: config, environment: environment, stateDirectoryFlag: stateDirectory, socketFlag: socket,
                defaults: defaults)
        }
        let configuration: DaemonConfiguration
        do {
            configuration = try load()
        } catch {
            SystemdNotifier().notify(.status(error.description), .exitStatus(78))
            Self.fail(error.description, exitCode: 78)
        }

        let identifier = "remindd"
        LoggingSystem.bootstrap(JournalLogHandler.factory(identifier: identifier))
        var logger = Logger(label: identifier)
        logger.logLevel = .info
        if defaults != .system {
            FileHandle.standardError.write(
                Data(
                    "remindd: state in \(configuration.stateDirectory), socket \(configuration.listen.socket)\n".utf8))
        }
        // Like logging, the metrics backend is the program's choice: libraries that record
        // through swift-metrics land on the daemon's own `/metrics` page.
        let metrics = DaemonMetrics()
        MetricsSystem.bootstrap(metrics.factory)
        do {
            let (group, _) = try Daemon.build(
                configuration: configuration, logger: logger, clock: ContinuousClock(), metrics: metrics,
                reread: load)
            try await group.run()
            Self.flushLog()
        } catch let error as StartupError {
            // systemd shows why the start failed: the status line and the exit status.
            SystemdNotifier().notify(.status(error.message), .exitStatus(error.exitCode))
            Self.fail(error.message, exitCode: error.exitCode)
        } catch {
            Self.fail("remindd: \(error)", exitCode: 1)
        }
    }

    /// Gives the journal writer a moment to send the last entries ("stopping"), which would otherwise end with the
    /// process; bounded, as journald may not be reading.
    static func flushLog() {
        JournalWriter.shared.flush(until: .now + .seconds(2))
    }

    static func fail(_ message: String, exitCode: Int32) -> Never {
        flushLog()
        FileHandle.standardError.write(Data((message + "\n").utf8))
        Glibc.exit(exitCode)
    }
}
