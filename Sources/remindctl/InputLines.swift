import Foundation
import RemindAPI

#if canImport(Glibc)
    import Glibc
#endif

/// The non-empty lines of a file or of standard input, read a block at a time so that an
/// input of any size passes through in bounded memory, each with its line number in the
/// input (blank lines count there, as an editor counts them).
struct InputLines {
    struct Line {
        var number: Int
        /// The line's bytes, without its newline.
        var bytes: ArraySlice<UInt8>
    }

    private let fd: Int32
    private var buffer: [UInt8] = []
    private var start = 0
    private var ended = false
    private var lineNumber = 0
    /// Bytes consumed so far, for progress against the file's size.
    private(set) var bytesRead = 0
    /// The input's size when it is a regular file; nil for a pipe or a terminal.
    let size: Int?

    /// `path` `-` is standard input.
    init(path: String) throws {
        if path == "-" {
            fd = STDIN_FILENO
        } else {
            fd = open(path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else {
                throw InputError("cannot open \(path): \(String(cString: strerror(errno)))")
            }
        }
        var info = stat()
        size = fstat(fd, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG ? Int(info.st_size) : nil
    }

    struct InputError: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    /// The next non-empty line; nil at the end. The last line needs no newline: the input
    /// ended, so it is whole.
    mutating func next() throws -> Line? {
        while true {
            if let newline = buffer[start...].firstIndex(of: UInt8(ascii: "\n")) {
                let line = buffer[start..<newline]
                start = newline + 1
                lineNumber += 1
                if NDJSONLines.isBlank(line) { continue }
                return Line(number: lineNumber, bytes: line)
            }
            if ended {
                guard start < buffer.count else { return nil }
                let line = buffer[start...]
                start = buffer.count
                lineNumber += 1
                return NDJSONLines.isBlank(line) ? nil : Line(number: lineNumber, bytes: line)
            }
            try fill()
        }
    }

    /// Reads the next block, keeping the unread rest of the buffer.
    private mutating func fill() throws {
        if start > 0 {
            buffer.removeFirst(start)
            start = 0
        }
        var block = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let count = block.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count > 0 {
                buffer += block[..<count]
                bytesRead += count
                return
            }
            if count == 0 {
                ended = true
                return
            }
            if errno == EINTR { continue }
            throw InputError("cannot read the input: \(String(cString: strerror(errno)))")
        }
    }
}
