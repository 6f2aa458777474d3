import Foundation
import RemindCore
import RemindTesting
import Testing

struct JSONParserTests {
    /// A nested document parses into the values it spells, objects keeping their key order.
    @Test func nestedDocumentParsesWithKeyOrderPreserved() throws {
        let value = try JSONParser.parse(
            #" { "z" : [1, -2.5, true, false, null, {"b": {}, "a": []}], "a": "x", "m": {"k": [[]]} } "#)
        let expected: JSONValue = .object([
            "z": .array([
                .int(1), .double(-2.5), .bool(true), .bool(false), .null,
                .object(["b": .object([:]), "a": .array([])]),
            ]),
            "a": .string("x"),
            "m": .object(["k": .array([.array([])])]),
        ])
        #expect(value == expected)
        guard case .object(let object) = value else {
            Issue.record("not an object: \(value)")
            return
        }
        #expect(object.keys == ["z", "a", "m"])
    }

    /// Every escape of RFC 8259 decodes, including a \u surrogate pair into one scalar.
    @Test func stringEscapesDecodeIncludingSurrogatePairs() throws {
        let value = try JSONParser.parse(#""q\"b\\s\/b\bf\fn\nr\rt\t é\u00e9\u20AC\ud83d\ude00 😀""#)
        #expect(value == .string("q\"b\\s/b\u{08}f\u{0C}n\nr\rt\t éé€😀 😀"))
        #expect(try JSONParser.parse(#""\u0000""#) == .string("\u{0}"))
    }

    /// Integers stay integers; fractions, exponents and integers beyond Int64 become doubles.
    @Test func numbersAreIntegersOrDoublesByTheirSpelling() throws {
        let cases: [(String, JSONValue)] = [
            ("0", .int(0)), ("-0", .int(0)), ("604800", .int(604_800)), ("-12", .int(-12)),
            ("9223372036854775807", .int(Int64.max)), ("-9223372036854775808", .int(Int64.min)),
            ("9223372036854775808", .double(9_223_372_036_854_775_808)), ("604800.5", .double(604_800.5)),
            ("3.0", .double(3)), ("1e3", .double(1000)), ("1E+2", .double(100)), ("2.5e-3", .double(0.0025)),
            ("-0.125", .double(-0.125)),
        ]
        for (text, expected) in cases {
            #expect(try JSONParser.parse(text) == expected, "\(text)")
        }
    }

    /// Malformed documents are refused, each with the offending byte offset.
    @Test func malformedDocumentsAreRejected() {
        let invalid = [
            "", " ", "[1,]", #"{"a":1,}"#, "[,1]", #"{"a" 1}"#, "{a:1}", "'x'", "tru", "nul", "[1 2]", "01", "-01",
            "00", "1.", ".5", "+1", "-", "1e", "1e+", "NaN", "Infinity", "1e400", #""\u12G4""#, #""\x""#, #""abc"#,
            "[1", #"{"a":1"#, #"{"a":1} x"#, "1 2", "[] []", "/*c*/1", "[1]//", #""a\"#,
        ]
        for text in invalid {
            #expect(throws: JSONParseError.self, "\(text.debugDescription)") { try JSONParser.parse(text) }
        }
    }

    /// Lone or reversed surrogates in \u escapes are refused: they are not Unicode scalars.
    @Test func loneSurrogatesAreRejected() {
        for text in [#""\ud800""#, #""\udc00""#, #""\ud800x""#, #""\ud800\u0041""#, #""\ude00\ud83d""#, #""\ud800\"#] {
            #expect(throws: JSONParseError.self, "\(text)") { try JSONParser.parse(text) }
        }
    }

    /// Raw control characters inside strings are refused; they must be escaped.
    @Test func controlCharactersInStringsAreRejected() {
        for byte: UInt8 in [0x00, 0x01, 0x09, 0x0A, 0x0D, 0x1F] {
            #expect(throws: JSONParseError.self, "byte \(byte)") { try JSONParser.parse([0x22, 0x61, byte, 0x22]) }
            // After an escape the parser takes its slow path: the rule must hold there too.
            #expect(throws: JSONParseError.self, "byte \(byte) after escape") {
                try JSONParser.parse([0x22, 0x5C, 0x6E, byte, 0x22])
            }
        }
    }

    /// Bytes that are not UTF-8 are refused, in member names and values, on both string paths.
    @Test func invalidUTF8IsRejected() throws {
        let documents: [[UInt8]] = [
            [0x22, 0xFF, 0x22], [0x22, 0xC0, 0xAF, 0x22], [0x22, 0xE2, 0x82, 0x22], [0x22, 0xED, 0xA0, 0x80, 0x22],
            [0x22, 0x5C, 0x6E, 0xFE, 0x22], [0x7B, 0x22, 0x80, 0x22, 0x3A, 0x31, 0x7D],
        ]
        for bytes in documents {
            #expect(throws: JSONParseError.self, "\(bytes)") { try JSONParser.parse(bytes) }
        }
        #expect(try JSONParser.parse([0x22, 0xC3, 0xA9, 0x22]) == .string("é"))
    }

    /// Nesting up to 64 levels parses; one more is refused rather than risking the stack.
    @Test func nestingDeeperThanSixtyFourLevelsIsRejected() throws {
        let ok = String(repeating: "[", count: 64) + String(repeating: "]", count: 64)
        _ = try JSONParser.parse(ok)
        let tooDeep = String(repeating: "[", count: 65) + String(repeating: "]", count: 65)
        #expect(throws: JSONParseError.self) { try JSONParser.parse(tooDeep) }
        let objects = String(repeating: #"{"a":"#, count: 65) + "1" + String(repeating: "}", count: 65)
        #expect(throws: JSONParseError.self) { try JSONParser.parse(objects) }
        let hostile = String(repeating: "[", count: 100_000)
        #expect(throws: JSONParseError.self) { try JSONParser.parse(hostile) }
    }

    /// The writer leaves `/` alone (event ids contain it) and escapes quotes, backslashes and
    /// every control character.
    @Test func writerEscapesControlCharactersButNotSlash() {
        #expect(JSONValue.string("u-42/1794736800/1").serialized == #""u-42/1794736800/1""#)
        #expect(JSONValue.string("a\"b\\c").serialized == #""a\"b\\c""#)
        #expect(JSONValue.string("\n\r\t\u{08}\u{0C}").serialized == #""\n\r\t\b\f""#)
        #expect(JSONValue.string("\u{0}\u{1}\u{1F}\u{7F}").serialized == "\"\\u0000\\u0001\\u001f\u{7F}\"")
        #expect(JSONValue.string("é😀").serialized == "\"é😀\"")
        let object: JSONValue = .object(["b": .int(1), "a": .array([.null, .bool(false)]), "c": .double(0.5)])
        #expect(object.serialized == #"{"b":1,"a":[null,false],"c":0.5}"#)
    }

    /// For random values, parsing the writer's output gives the value back.
    @Test func writerOutputParsesBackToTheSameValue() throws {
        for seed in propertySeeds(0x150_0001, count: 300) {
            var rng = SplitMix64(seed: seed)
            let value = Self.randomValue(depth: 0, using: &rng)
            let text = value.serialized
            #expect(try JSONParser.parse(text) == value, "seed \(seed): \(text)")
            #expect(try JSONParser.parse(Array(text.utf8)).serialized == text, "seed \(seed)")
        }
    }

    static func randomValue(depth: Int, using rng: inout SplitMix64) -> JSONValue {
        let kind = depth >= 4 ? rng.int(0...4) : rng.int(0...6)
        switch kind {
        case 0: return .null
        case 1: return .bool(rng.chance(0.5))
        case 2:
            return .int(rng.chance(0.2) ? rng.element([Int64.min, Int64.max, 0]) : rng.int64(-1_000_000...1_000_000))
        case 3:
            // Integral doubles are written as integers and read back as .int: keep a fraction.
            let magnitude = rng.element([1e-9, 1e-3, 1.0, 1e6, 1e20])
            var double = Double.random(in: -1...1, using: &rng) * magnitude
            if double.rounded() == double { double += 0.5 }
            return .double(double)
        case 4: return .string(randomString(using: &rng))
        case 5: return .array((0..<rng.int(0...4)).map { _ in randomValue(depth: depth + 1, using: &rng) })
        default:
            return .object(
                JSONObject(
                    (0..<rng.int(0...4)).map { _ in
                        (key: randomString(using: &rng), value: randomValue(depth: depth + 1, using: &rng))
                    }))
        }
    }

    static func randomString(using rng: inout SplitMix64) -> String {
        let pool: [Unicode.Scalar] = [
            "a", "Z", "0", " ", "\"", "\\", "/", "\n", "\r", "\t", "\u{0}", "\u{1}", "\u{1F}", "\u{7F}", "é", "€",
            "\u{FFFF}", "😀", "\u{10FFFF}", "\u{2028}",
        ]
        var scalars = String.UnicodeScalarView()
        for _ in 0..<rng.int(0...12) { scalars.append(rng.element(pool)) }
        return String(scalars)
    }
}
