import ArgumentParser

/// remindctl's exit codes (README "remindctl"), for scripts that tell "the daemon said no" from "the
/// daemon is not there".
extension ExitCode {
    /// The daemon refused or failed the request (unknown user, invalid reload, …).
    static let daemonFailure = ExitCode(1)
    /// The command line is wrong. ArgumentParser's own default is EX_USAGE (64); 2 is what
    /// systemctl and most shells' builtins use.
    static let usage = ExitCode(2)
    /// Nothing answers on the socket.
    static let unreachable = ExitCode(3)
    /// `config check` found the file invalid (EX_CONFIG, as `remindd` exits at start).
    static let invalidConfiguration = ExitCode(78)
}
