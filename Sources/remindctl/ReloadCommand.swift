import ArgumentParser
import RemindClient

/// `remindctl reload`: the daemon re-reads its configuration file, like `SIGHUP`.
struct ReloadCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reload",
        abstract: "Make the daemon re-read its configuration file.",
        discussion: """
            Notification, schedule, heartbeat and history settings apply at once; listen, \
            stateDirectory and sinks changes at the next restart. An invalid file is refused \
            (exit 1, with the key path) and the running configuration is kept. Check a file \
            first with `remindctl config check FILE`.

            Examples:
              remindctl reload
              remindctl --json reload | jq .notification
            """)

    @OptionGroup(title: "Global Options")
    var options: GlobalOptions

    func run() throws {
        let session = try options.session()
        guard try session.call({ client throws(DaemonClientError) in try client.reload() }) != nil else { return }
        session.terminal.line("Reloaded the configuration.")
    }
}
