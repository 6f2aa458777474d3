import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Writing to the terminal: standard output for answers, standard error for failures, and
/// ANSI colour only where a person looks at it.
struct Terminal {
    enum Style: String {
        case bold = "1"
        case dim = "2"
        case red = "31"
        case green = "32"
        case yellow = "33"
    }

    /// Colour on standard output: only on a terminal, never with `NO_COLOR` set to anything
    /// (https://no-color.org), never on a `dumb` one.
    let color: Bool
    let outputIsTerminal: Bool

    init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        outputIsTerminal = isatty(STDOUT_FILENO) == 1
        color =
            outputIsTerminal && (environment["NO_COLOR"] ?? "").isEmpty && environment["TERM"] != "dumb"
    }

    func style(_ text: String, _ style: Style) -> String {
        color && !text.isEmpty ? "\u{1B}[\(style.rawValue)m\(text)\u{1B}[0m" : text
    }

    // Everything goes through FileHandle (unbuffered writes), so answers and messages on the
    // two streams come out in the order they were written.
    func line(_ text: String = "") {
        Self.writeOutput(Array((text + "\n").utf8))
    }

    /// Bytes exactly as given; a newline is added only on a terminal, where a prompt would
    /// otherwise follow the JSON on the same line.
    func raw(_ bytes: [UInt8]) {
        Self.writeOutput(bytes)
        if outputIsTerminal && bytes.last != UInt8(ascii: "\n") && !bytes.isEmpty { line() }
    }

    /// One message on standard error, each line prefixed with `remindctl: `.
    static func error(_ message: String) {
        let text = message.split(separator: "\n", omittingEmptySubsequences: false)
            .map { "remindctl: \($0)\n" }.joined()
        FileHandle.standardError.write(Data(text.utf8))
    }

    /// Writes to standard output unbuffered. When the reader has gone (`remindctl pending |
    /// head`), the process ends as a command killed by SIGPIPE would, silently: NIO ignores
    /// SIGPIPE for its sockets, and FileHandle would trap on the EPIPE that comes instead.
    static func writeOutput(_ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { write(STDOUT_FILENO, $0.baseAddress, $0.count) }
            if written > 0 {
                offset += written
            } else if written < 0 && errno == EINTR {
                continue
            } else {
                if errno == EPIPE {
                    signal(SIGPIPE, SIG_DFL)
                    raise(SIGPIPE)
                }
                exit(1)
            }
        }
    }
}
