import RemindTesting

extension DaemonProcess {
    /// A daemon for remindctl to talk to, ready: `configuration` (a whole JSON object) as its
    /// file, by default one with a file sink, so that nothing is written to the host's journal.
    static func started(configuration: String? = nil) throws -> DaemonProcess {
        let daemon = try configuration.map(DaemonProcess.init(configurationFile:)) ?? DaemonProcess()
        try daemon.start(environment: ["TZ": "UTC", "HOME": daemon.directory])
        return daemon
    }
}
