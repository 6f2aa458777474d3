/// Strings numbered in the order first seen, so that a packed row (`PackedSchedules`) keeps a
/// small number instead of a 16-byte `String` with its reference count: time zones, experiment
/// groups and locales, of which a million users share a few.
///
/// Number 0 is left for "none": the first string is 1. Past `capacity` strings, `number`
/// answers nil and the caller keeps the string elsewhere.
struct InternedStrings<Number: FixedWidthInteger & UnsignedInteger & Sendable>: Sendable {
    private var strings: [String] = []
    private var numbers: [String: Number] = [:]
    /// The string numbered last: most users in a row share it, and comparing is cheaper than
    /// hashing (the lookups were 8 % of start-up at a million users).
    private var last: (string: String, number: Number)?
    let capacity: Int

    init(capacity: Int) {
        precondition(capacity < Int(Number.max), "a number must stay free")
        self.capacity = capacity
    }

    var count: Int { strings.count }

    /// The string's number (1 + its index), numbering it if new; nil when the table is full.
    mutating func number(_ string: String) -> Number? {
        if let last, last.string == string { return last.number }
        if let known = numbers[string] {
            last = (string, known)
            return known
        }
        guard strings.count < capacity else { return nil }
        strings.append(string)
        let number = Number(strings.count)
        numbers[string] = number
        last = (string, number)
        return number
    }

    /// The same from UTF-8 bytes: a string is made only when they differ from the last one.
    mutating func number(utf8 bytes: some Collection<UInt8>) -> Number? {
        if let last, last.string.utf8.elementsEqual(bytes) { return last.number }
        return number(String(decoding: bytes, as: UTF8.self))
    }

    /// The string numbered `number` (1 or more).
    subscript(number: Number) -> String { strings[Int(number) - 1] }
}
