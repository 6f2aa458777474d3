/// The copy set's keys in a configuration file: the texts (`notificationTitle`,
/// `notificationDescription`, `inAppTitle`, `inAppBody`, `inAppButton`), `byReason` (reason →
/// texts), `localizations` (BCP 47 tag → texts and a `byReason` of its own) and `platforms`
/// (`ios`, `android` → a copy set of its own, without `platforms`). Read strictly: an unknown
/// key or platform, a reason that can never be one, a malformed or repeated tag, or an empty
/// title or button is an error naming its key path.
extension CopySet {
    /// Reads a whole copy set (an experiment variant's, say) from `object`; keys other than
    /// the copy set's are left for the caller to read or refuse.
    public init(reading reader: inout JSONObjectReader) throws(ValidationError) {
        self.init(texts: try Self.texts(&reader))
        try readExtras(&reader)
    }

    /// Reads the in-app texts, `byReason`, `localizations` and `platforms` (the notification's
    /// texts being read by the caller, which may default them).
    public mutating func readExtras(_ reader: inout JSONObjectReader) throws(ValidationError) {
        try readExtras(&reader, platforms: true)
    }

    private mutating func readExtras(_ reader: inout JSONObjectReader, platforms allowed: Bool) throws(ValidationError)
    {
        for key in [Key.inAppTitle, .inAppBody, .inAppButton] {
            texts[key] = try Self.text(key, &reader)
        }
        if let object = try reader.object("byReason") {
            byReason = try Self.byReason(object, path: reader.fieldPath("byReason"))
        }
        if let object = try reader.object("localizations") {
            let path = reader.fieldPath("localizations")
            try Self.rejectDuplicates(object, path: path)
            var localizations: [String: Localization] = [:]
            for (tag, value) in object.members {
                let tagPath = "\(path).\(tag)"
                guard LocaleTag.isValid(tag) else {
                    throw ValidationError(
                        field: tagPath, reason: "is not a BCP 47 tag of 2–35 letters, digits and '-', such as de-CH")
                }
                if let other = localizations.keys.first(where: { $0.caseInsensitiveEquals(tag) }) {
                    throw ValidationError(field: tagPath, reason: "is the same tag as \"\(other)\" (tags ignore case)")
                }
                guard case .object(let texts) = value else {
                    throw ValidationError(field: tagPath, reason: "must be an object, got \(value.typeName)")
                }
                try Self.rejectDuplicates(texts, path: tagPath)
                var textReader = JSONObjectReader(texts, path: tagPath)
                var localization = Localization(texts: try Self.texts(&textReader))
                if let object = try textReader.object("byReason") {
                    localization.byReason = try Self.byReason(object, path: textReader.fieldPath("byReason"))
                }
                try Self.rejectUnknown(textReader, Self.keyNames + ", byReason")
                localizations[tag] = localization
            }
            self.localizations = localizations
        }
        guard allowed, let object = try reader.object("platforms") else { return }
        let path = reader.fieldPath("platforms")
        try Self.rejectDuplicates(object, path: path)
        for (name, value) in object.members {
            let platformPath = "\(path).\(name)"
            guard let platform = CopyPlatform(rawValue: name) else {
                throw ValidationError(
                    field: platformPath,
                    reason:
                        "is not a platform (\(CopyPlatform.allCases.map(\.rawValue).joined(separator: ", ")): the first word of a report's platform, lowercase)"
                )
            }
            guard case .object(let platformObject) = value else {
                throw ValidationError(field: platformPath, reason: "must be an object, got \(value.typeName)")
            }
            try Self.rejectDuplicates(platformObject, path: platformPath)
            var platformReader = JSONObjectReader(platformObject, path: platformPath)
            var set = CopySet(texts: Texts(notificationTitle: try Self.text(.notificationTitle, &platformReader)))
            set.texts[.notificationDescription] = try Self.text(.notificationDescription, &platformReader)
            try set.readExtras(&platformReader, platforms: false)
            try Self.rejectUnknown(platformReader, Self.keyNames + ", byReason, localizations")
            platforms[platform] = set
        }
    }

    /// The copy keys, for messages naming what is known.
    public static let keyNames = Key.allCases.map(\.rawValue).joined(separator: ", ")

    private static func byReason(
        _ object: JSONObject, path: String
    ) throws(ValidationError) -> [PermissionErrorType:
        Texts]
    {
        try rejectDuplicates(object, path: path)
        var result: [PermissionErrorType: Texts] = [:]
        for (name, value) in object.members {
            let reasonPath = "\(path).\(name)"
            guard let reason = PermissionErrorType(rawValue: name), PermissionErrorSet.remindable.contains(reason)
            else {
                let names = PermissionErrorSet.remindable.map(\.rawValue).joined(separator: ", ")
                let why =
                    name == PermissionErrorType.notificationsTurnedOff.rawValue
                    ? "is never a reminder's reason: a reminder cannot reach a user whose notifications are off"
                    : "is not a reason (\(names))"
                throw ValidationError(field: reasonPath, reason: why)
            }
            guard case .object(let texts) = value else {
                throw ValidationError(field: reasonPath, reason: "must be an object, got \(value.typeName)")
            }
            try rejectDuplicates(texts, path: reasonPath)
            var reader = JSONObjectReader(texts, path: reasonPath)
            result[reason] = try Self.texts(&reader)
            try rejectUnknown(reader, keyNames)
        }
        return result
    }

    /// Every copy key of one level.
    private static func texts(_ reader: inout JSONObjectReader) throws(ValidationError) -> Texts {
        var texts = Texts()
        for key in Key.allCases { texts[key] = try text(key, &reader) }
        return texts
    }

    private static func text(_ key: Key, _ reader: inout JSONObjectReader) throws(ValidationError) -> String? {
        let text = try reader.string(key.rawValue)
        if key.mustNotBeBlank, let text, text.isBlank {
            throw ValidationError(field: reader.fieldPath(key.rawValue), reason: "must not be empty")
        }
        return text
    }

    private static func rejectUnknown(_ reader: JSONObjectReader, _ known: String) throws(ValidationError) {
        if let key = reader.unreadKeys.first {
            throw ValidationError(field: reader.fieldPath(key), reason: "is not a known key (\(known))")
        }
    }

    /// A key written twice would otherwise silently lose its first value.
    private static func rejectDuplicates(_ object: JSONObject, path: String) throws(ValidationError) {
        var seen: Set<String> = []
        for key in object.keys where !seen.insert(key).inserted {
            throw ValidationError(field: "\(path).\(key)", reason: "appears more than once")
        }
    }

    /// `byReason` as the effective configuration shows it: reasons in precedence order, and
    /// only the texts that are set.
    public static func json(_ byReason: [PermissionErrorType: Texts]) -> JSONValue {
        var members: [(key: String, value: JSONValue)] = []
        for reason in PermissionErrorType.allCases {
            guard let texts = byReason[reason] else { continue }
            members.append((reason.rawValue, texts.json))
        }
        return .object(JSONObject(members))
    }

    /// `localizations` as the effective configuration shows it, tags sorted.
    public static func json(_ localizations: [String: Localization]) -> JSONValue {
        .object(
            JSONObject(
                localizations.sorted { $0.key < $1.key }.map { tag, localization in
                    var members = localization.texts.members
                    if !localization.byReason.isEmpty { members.append(("byReason", json(localization.byReason))) }
                    return (tag, .object(JSONObject(members)))
                }))
    }

    /// `platforms` as the effective configuration shows it, names sorted.
    public static func json(_ platforms: [CopyPlatform: CopySet]) -> JSONValue {
        .object(JSONObject(platforms.sorted { $0.key < $1.key }.map { ($0.key.rawValue, $0.value.json) }))
    }

    /// The in-app texts that are set, as members of an object.
    public var inAppMembers: [(key: String, value: JSONValue)] {
        [Key.inAppTitle, .inAppBody, .inAppButton].compactMap { key in texts[key].map { (key.rawValue, .string($0)) } }
    }

    /// The whole set, as a variant would show it.
    public var json: JSONValue {
        var members = texts.members
        members.append(("byReason", Self.json(byReason)))
        members.append(("localizations", Self.json(localizations)))
        if !platforms.isEmpty { members.append(("platforms", Self.json(platforms))) }
        return .object(JSONObject(members))
    }
}

extension CopySet.Texts {
    fileprivate var members: [(key: String, value: JSONValue)] {
        CopySet.Key.allCases.compactMap { key in self[key].map { (key.rawValue, .string($0)) } }
    }

    var json: JSONValue { .object(JSONObject(members)) }
}

/// BCP 47 language tags as remindd accepts them: 2–35 letters, digits and `-` (the same rule as
/// a report's `locale`; the tag is matched, never interpreted beyond its first subtag).
public enum LocaleTag {
    public static func isValid(_ tag: String) -> Bool {
        PermissionReport.localeLength.contains(tag.utf8.count)
            && tag.utf8.allSatisfy {
                $0 == 0x2D || (0x30...0x39).contains($0) || (0x41...0x5A).contains($0) || (0x61...0x7A).contains($0)
            }
    }
}
