/// A validated user ID: 1–128 characters from `A-Z a-z 0-9 . _ ~ @ + : -`, not `.` or `..`.
///
/// The alphabet keeps IDs safe in URLs, file names and event ids (where `/` separates the
/// parts). Even so, no file name is built from the raw ID: see `fileName`.
public struct UserID: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let rawValue: String

    public static let maximumLength = 128

    /// Validates an ID as it appears in JSON or on a command line.
    public init(_ text: String) throws(ValidationError) {
        guard Self.isValid(text) else {
            throw ValidationError(
                field: "userID",
                reason: "must be 1–\(Self.maximumLength) characters from A-Z a-z 0-9 . _ ~ @ + : - and not '.' or '..'"
            )
        }
        rawValue = text
    }

    /// `-`, valid by construction and too short to hold storage of its own: what a packed
    /// table leaves in a freed row.
    package static let placeholder = UserID(valid: "-")

    private init(valid text: String) {
        rawValue = text
    }

    /// Percent-decodes a URL path segment, then validates it, so `u%40x.com` is `u@x.com` and
    /// `%2E%2E` or `a%2Fb` are refused like `..` and `a/b`.
    public init(pathSegment: some StringProtocol) throws(ValidationError) {
        guard let decoded = Self.percentDecode(pathSegment) else {
            throw ValidationError(field: "userID", reason: "is not valid percent-encoding")
        }
        try self.init(decoded)
    }

    public static func isValid(_ text: String) -> Bool {
        let utf8 = text.utf8
        guard !utf8.isEmpty, utf8.count <= maximumLength, text != ".", text != ".." else { return false }
        return utf8.allSatisfy(isAllowed)
    }

    static func isAllowed(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        case UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "@"), UInt8(ascii: "+"),
            UInt8(ascii: ":"), UInt8(ascii: "-"):
            true
        default: false
        }
    }

    static func percentDecode(_ text: some StringProtocol) -> String? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var iterator = text.utf8.makeIterator()
        while let byte = iterator.next() {
            if byte == UInt8(ascii: "%") {
                guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else {
                    return nil
                }
                bytes.append(high << 4 | low)
            } else {
                bytes.append(byte)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// The user's file name: every byte outside `A-Z a-z 0-9 - _` percent-encoded, then
    /// `.json`. Dots are encoded too, so no name can be `.`/`..` or look like a temp file.
    public var fileName: String {
        let hex = Array("0123456789ABCDEF".utf8)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(rawValue.utf8.count + 8)
        for byte in rawValue.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
                bytes.append(byte)
            default:
                bytes.append(contentsOf: [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
            }
        }
        bytes.append(contentsOf: ".json".utf8)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Recovers the ID from a name made by `fileName`; nil for any other name, including
    /// other spellings of the same ID (`%41.json` for `A`), which would otherwise give one
    /// user two files.
    public init?(fileName: String) {
        guard fileName.hasSuffix(".json"),
            let decoded = Self.percentDecode(fileName.dropLast(5)),
            Self.isValid(decoded)
        else { return nil }
        rawValue = decoded
        guard self.fileName == fileName else { return nil }
    }

    /// The two shard directories, `ab/cd`, from a stable hash so users spread evenly.
    public var shard: (String, String) {
        let index = shardIndex
        let hex = Array("0123456789abcdef".utf8)
        func byteHex(_ value: Int) -> String {
            String(decoding: [hex[value >> 4 & 0xF], hex[value & 0xF]], as: UTF8.self)
        }
        return (byteHex(index >> 8), byteHex(index))
    }

    /// The shard as one number, `0xabcd` for `ab/cd`: the hash's top 16 bits.
    public var shardIndex: Int { Int(StableHash.mixed(rawValue) >> 48 & 0xFFFF) }

    public var description: String { rawValue }

    public static func < (lhs: UserID, rhs: UserID) -> Bool { lhs.rawValue < rhs.rawValue }
}
