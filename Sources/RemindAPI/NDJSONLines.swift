/// Newline-delimited JSON as the bulk route reads it: one JSON value a line; a line of nothing
/// but whitespace is no line at all (it is not counted).
public enum NDJSONLines {
    /// The non-empty lines of `bytes`, without their newlines. A line whose slice ends before
    /// `bytes.endIndex` was followed by a newline; the last one may not have been.
    public static func split(_ bytes: [UInt8]) -> [ArraySlice<UInt8>] {
        var lines: [ArraySlice<UInt8>] = []
        var start = bytes.startIndex
        while start < bytes.endIndex {
            let end = bytes[start...].firstIndex(of: UInt8(ascii: "\n")) ?? bytes.endIndex
            let line = bytes[start..<end]
            if !isBlank(line) { lines.append(line) }
            start = end + 1
        }
        return lines
    }

    /// True for a line of JSON whitespace only (a `\r` of a CRLF line end included).
    public static func isBlank(_ line: some Collection<UInt8>) -> Bool {
        line.allSatisfy { $0 == 0x20 || $0 == 0x09 || $0 == 0x0D || $0 == 0x0A }
    }
}
