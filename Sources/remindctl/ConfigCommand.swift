import ArgumentParser
import Foundation
import RemindConfig
import RemindCore

/// `remindctl config check FILE`: the daemon's own validation, offline.
struct ConfigCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config",
        abstract: "Work with configuration files, without the daemon.",
        subcommands: [Check.self])
}

extension ConfigCommand {
    struct Check: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check a configuration file as remindd would load it.",
            discussion: """
                The same validation and messages as remindd at start and at reload: an invalid \
                file is named with its key path and reason, and remindctl exits with 78 \
                (EX_CONFIG). With --json the effective configuration is printed, every default \
                filled in, as `GET /v1/config` would show it.

                Examples:
                  remindctl config check /etc/remindd/remindd.json
                  remindctl --json config check remindd.json | jq .sinks
                """)

        @OptionGroup(title: "Global Options")
        var options: GlobalOptions

        @Argument(help: "The configuration file.", completion: .file(extensions: ["json"]))
        var file: String

        func run() throws {
            let environment = ProcessInfo.processInfo.environment
            let defaults = ConfigurationLoader.Defaults.detect(
                environment: environment, currentDirectory: FileManager.default.currentDirectoryPath)
            let configuration: DaemonConfiguration
            do {
                // Only the file is checked: the environment's overrides belong to the daemon's
                // process, not to the file being checked.
                configuration = try ConfigurationLoader.load(
                    path: file, environment: [:], stateDirectoryFlag: nil, socketFlag: nil, defaults: defaults)
            } catch {
                Terminal.error(
                    ([error.path].compactMap { $0 } + [error.validationError.description]).joined(separator: ": "))
                throw ExitCode.invalidConfiguration
            }
            // The daemon reads `storage.urlFile` at start; a URL it could not use fails here too.
            let databaseURL: DatabaseURL?
            do {
                databaseURL = try configuration.storage.resolvedURL()
            } catch {
                Terminal.error("\(file): \(error)")
                throw ExitCode.invalidConfiguration
            }
            let terminal = Terminal()
            if options.json {
                terminal.raw(Array(configuration.json.serialized.utf8))
                return
            }
            let sinks = configuration.sinks.map {
                "\($0.name) (\($0.type.rawValue)\($0.role == .fallback ? ", fallback" : ""))"
            }.joined(separator: ", ")
            terminal.line("\(file): valid")
            var table = Table()
            if let databaseURL {
                table.append(["storage", "postgres \(databaseURL)"])
            } else {
                table.append(["state directory", configuration.stateDirectory])
            }
            table.append(["socket", configuration.listen.socket])
            table.append(["sinks", sinks])
            if let fallback = Self.fallbackNote(configuration) { table.append(["fallback", fallback]) }
            table.print(terminal) { _, column, text in column == 0 ? terminal.style(text, .dim) : text }
        }

        /// What the fallback sinks will get (docs/fallback.md); nil without one. A fallback sink
        /// without a push sink is valid (everyone falls back), and said so.
        static func fallbackNote(_ configuration: DaemonConfiguration) -> String? {
            let channels = configuration.channels
            guard channels.hasFallback else { return nil }
            if channels.pushSinks.isEmpty {
                return "no push sink (apns, fcm) is configured: every reminder goes to the fallback sinks (noPushAddress)"
            }
            let silent = configuration.fallback.silentAfterSeconds.map { "an app silent for \($0) s" } ?? "never silence"
            return
                "reminders push cannot reach go to the fallback sinks: no push address, unreachable, notifications off, \(silent)"
        }
    }
}
