import Foundation
import RemindCore
import RemindTesting
import Testing

struct UserIDTests {
    static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._~@+:-")

    static func expectRejected(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(throws: ValidationError.self, "\(text.debugDescription)", sourceLocation: sourceLocation) {
            try UserID(text)
        }
        #expect(!UserID.isValid(text), "\(text.debugDescription)", sourceLocation: sourceLocation)
    }

    /// Every character of the alphabet is accepted, alone and together.
    @Test func everyCharacterOfTheAlphabetIsAccepted() throws {
        #expect(try UserID(String(Self.alphabet)).rawValue == String(Self.alphabet))
        for character in Self.alphabet where character != "." {
            #expect(try UserID(String(character)).rawValue == String(character))
        }
        #expect(try UserID("...").rawValue == "...")
        #expect(try UserID(".a").rawValue == ".a")
        #expect(try UserID("u@x.com").rawValue == "u@x.com")
    }

    /// Characters outside the alphabet are refused, naming the userID field.
    @Test func charactersOutsideTheAlphabetAreRejected() {
        let outside = ["a/b", "a b", "a%b", "a#b", "a?b", "a\\b", "é", "a\u{0}", "a\n", "a*", "a,b", "a=b", "a!b", "😀"]
        for text in outside {
            Self.expectRejected(text)
        }
        do {
            let id = try UserID("a/b")
            Issue.record("accepted \(id)")
        } catch {
            #expect(error.field == "userID")
        }
    }

    /// 128 characters is the longest ID; 129 and the empty string are refused.
    @Test func lengthIsOneToOneHundredTwentyEight() throws {
        #expect(try UserID(String(repeating: "a", count: 128)).rawValue.count == 128)
        Self.expectRejected(String(repeating: "a", count: 129))
        Self.expectRejected("")
    }

    /// `.` and `..` would be path components and are refused.
    @Test func dotAndDotDotAreRejected() {
        Self.expectRejected(".")
        Self.expectRejected("..")
    }

    /// A path segment is percent-decoded before validation.
    @Test func pathSegmentIsPercentDecoded() throws {
        #expect(try UserID(pathSegment: "u%40x.com").rawValue == "u@x.com")
        #expect(try UserID(pathSegment: "u-42").rawValue == "u-42")
        #expect(try UserID(pathSegment: "%41%62c").rawValue == "Abc")
        #expect(try UserID(pathSegment: "a%2bb%3A").rawValue == "a+b:")
    }

    /// Encoded dots, slashes, characters outside the alphabet and broken escapes are refused.
    @Test func pathSegmentRejectsEncodedTraversalAndBadEscapes() {
        for segment in [
            "%2E%2E", "%2e%2e", "%2E", ".%2E", "a%2Fb", "a%2fb", "%2F", "%G1", "%1G", "a%4", "%", "a%",
            "%%41", "%C3%A9", "%FF", "%00", "a%20b", "",
        ] {
            #expect(throws: ValidationError.self, "\(segment)") { try UserID(pathSegment: segment) }
        }
    }

    /// The shard directories are a stable hash of the ID: pinned here so a release that
    /// changes the hash (and would lose every user's file) fails.
    @Test func shardIsStable() throws {
        let id = try UserID("u-42")
        #expect(id.shard == ("f4", "ed"))
        #expect(try UserID("u-42").shard == id.shard)
    }

    /// Sequential IDs spread over the shard directories: 100,000 of them use most of the
    /// 65,536 directories and none holds more than a handful.
    @Test func shardsSpreadSequentialIDs() throws {
        var counts: [String: Int] = [:]
        for index in 0..<100_000 {
            let (first, second) = try UserID("u-\(index)").shard
            counts[first + second, default: 0] += 1
        }
        // A uniform spread of 100,000 over 65,536 fills about 50,000 and tops out near 8.
        #expect(counts.count > 45_000)
        #expect(counts.values.max()! <= 12)
    }

    /// For random valid IDs, the file name has no `/`, no dot before `.json`, only safe
    /// characters, is distinct per ID, and decodes back to the ID; shards are two hex bytes.
    @Test func fileNameRoundTripsForRandomIDs() throws {
        var names: [String: UserID] = [:]
        let safe = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_%")
        for seed in propertySeeds(0x1D_0001, count: 500) {
            var rng = SplitMix64(seed: seed)
            let length = rng.chance(0.1) ? 128 : rng.int(1...20)
            let pool = rng.chance(0.3) ? Array("._~@+:-.") : Self.alphabet
            let text = String((0..<length).map { _ in rng.element(pool) })
            guard text != ".", text != ".." else { continue }
            let id = try UserID(text)
            let name = id.fileName
            #expect(name.hasSuffix(".json"), "seed \(seed): \(name)")
            let stem = name.dropLast(5)
            #expect(!stem.isEmpty && stem.allSatisfy(safe.contains), "seed \(seed): \(name)")
            #expect(!name.contains("/") && !stem.contains("."), "seed \(seed): \(name)")
            #expect(UserID(fileName: name) == id, "seed \(seed): \(text) → \(name)")
            if let other = names.updateValue(id, forKey: name) {
                #expect(other == id, "seed \(seed): \(other) and \(id) share \(name)")
            }
            let hex = Set("0123456789abcdef")
            #expect(id.shard.0.count == 2 && id.shard.1.count == 2, "seed \(seed)")
            #expect((id.shard.0 + id.shard.1).allSatisfy(hex.contains), "seed \(seed)")
        }
        #expect(try UserID("u@x.com").fileName == "u%40x%2Ecom.json")
        #expect(try UserID("...").fileName == "%2E%2E%2E.json")
    }

    /// Names that do not decode to a valid ID are not user files.
    @Test func fileNameInitRejectsOtherNames() {
        for name in [
            "", ".json", "u-42", "u-42.txt", "u-42.json.tmp", "%2E%2E.json", "%2E.json", "a%2Fb.json", "%G1.json",
            "a%4.json", "%C3%A9.json", String(repeating: "a", count: 129) + ".json",
        ] {
            #expect(UserID(fileName: name) == nil, "\(name)")
        }
    }

    /// `init(fileName:)` is documented to recover only names made by `fileName`: a name that is
    /// not the canonical encoding of its ID must not map to that ID (it would alias the real file).
    @Test func fileNameInitRejectsNonCanonicalEncodings() {
        for name in ["u@x.com.json", "u%40x%2ecom.json", "%41.json", "a.b.json", "u%2D42.json"] {
            let id = UserID(fileName: name)
            #expect(id == nil || id?.fileName == name, "\(name) decodes to \(id.map(\.rawValue) ?? "nil")")
        }
    }
}
