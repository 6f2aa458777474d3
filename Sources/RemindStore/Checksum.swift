/// The checksum of the snapshot files and of each write-ahead log entry: 64-bit FNV-1a, as 16
/// lowercase hex digits. It is there to tell damage (a bad sector, a stray write, an operator's
/// editor) from data, not to resist an attacker, who could rewrite the file anyway.
enum Checksum {
    static func of(_ bytes: ArraySlice<UInt8>) -> UInt64 {
        bytes.withUnsafeBufferPointer { buffer in
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325
            for byte in buffer {
                hash ^= UInt64(byte)
                hash = hash &* 0x0000_0100_0000_01B3
            }
            return hash
        }
    }

    /// `value` as 16 hex digits.
    static func hex(_ value: UInt64) -> [UInt8] {
        let digits = Array("0123456789abcdef".utf8)
        return (0..<16).map { index in digits[Int((value >> UInt64(60 - 4 * index)) & 0xF)] }
    }

    /// 16 hex digits read back; nil for anything else.
    static func parse(_ text: ArraySlice<UInt8>) -> UInt64? {
        guard text.count == 16 else { return nil }
        var value: UInt64 = 0
        for byte in text {
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            default: return nil
            }
            value = value << 4 | UInt64(digit)
        }
        return value
    }

    /// Appends a tab and the checksum of `line` (which holds no tab at its end) to `bytes`.
    static func appendLine(_ line: ArraySlice<UInt8>, to bytes: inout [UInt8]) {
        bytes.append(contentsOf: line)
        bytes.append(UInt8(ascii: "\t"))
        bytes.append(contentsOf: hex(of(line)))
    }

    /// A line written by `appendLine` without its checksum; nil when the checksum does not
    /// match. A line without one (written before lines carried it) is returned as it is.
    static func verified(_ line: ArraySlice<UInt8>) -> ArraySlice<UInt8>? {
        guard let (content, stored) = split(line) else { return line }
        return of(content) == stored ? content : nil
    }

    /// Whether `line` ends in a tab and 16 hex digits, that is, carries a checksum.
    static func isSealed(_ line: ArraySlice<UInt8>) -> Bool { split(line) != nil }

    private static func split(_ line: ArraySlice<UInt8>) -> (ArraySlice<UInt8>, UInt64)? {
        guard line.count > 17, line[line.endIndex - 17] == UInt8(ascii: "\t"),
            let stored = parse(line[(line.endIndex - 16)...])
        else { return nil }
        return (line[..<(line.endIndex - 17)], stored)
    }
}
