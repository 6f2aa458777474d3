import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A pseudo-terminal pair, so a test can give remindctl a real terminal: `isatty` is true on
/// the secondary side, and what the program writes there is read back from the primary side.
final class PseudoTerminal {
    let primary: Int32
    let secondary: Int32
    private var secondaryOpen = true

    // posix_openpt, unlockpt and ptsname are hidden behind feature macros Swift's Glibc module
    // does not define, so the Linux calls they wrap are made directly (values from
    // <asm-generic/ioctls.h>, the same on x86_64 and arm64).
    private static let getPTYNumber: UInt = 0x8004_5430  // TIOCGPTN
    private static let setPTYLock: UInt = 0x4004_5431  // TIOCSPTLCK

    init() throws {
        primary = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard primary >= 0 else { throw POSIXError(.init(rawValue: errno) ?? .EIO) }
        var unlock: Int32 = 0
        var number: UInt32 = 0
        guard ioctl(primary, Self.setPTYLock, &unlock) == 0, ioctl(primary, Self.getPTYNumber, &number) == 0 else {
            close(primary)
            throw POSIXError(.init(rawValue: errno) ?? .EIO)
        }
        secondary = open("/dev/pts/\(number)", O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard secondary >= 0 else {
            close(primary)
            throw POSIXError(.init(rawValue: errno) ?? .EIO)
        }
    }

    deinit {
        close(primary)
        if secondaryOpen { close(secondary) }
    }

    /// Types `text` as if on the keyboard.
    func type(_ text: String) {
        _ = text.utf8CString.withUnsafeBufferPointer { write(primary, $0.baseAddress, $0.count - 1) }
    }

    /// Everything written to the terminal, once the program that had it ended: with the last
    /// secondary descriptor closed, reading drains the buffer and then fails with EIO.
    func output() -> String {
        if secondaryOpen {
            close(secondary)
            secondaryOpen = false
        }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(primary, &buffer, buffer.count)
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { break }
            bytes += buffer[0..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
