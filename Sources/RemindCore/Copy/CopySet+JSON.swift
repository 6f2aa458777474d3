/// The copy set's keys in a configuration file: `notificationTitle`, `notificationDescription`,
/// `byReason` (reason → the two texts) and `localizations` (BCP 47 tag → the two texts and a
/// `byReason` of its own). Read strictly: an unknown key, a reason that can never be one, a
/// malformed or repeated tag, or an empty title is an error naming its key path.
extension CopySet {
    /// Reads a whole copy set (an experiment variant's, say) from `object`; keys other than
    /// the copy set's are left for the caller to read or refuse.
    public init(reading reader: inout JSONObjectReader) throws(ValidationError) {
        self.init(
            notificationTitle: try Self.title(&reader),
            notificationDescription: try reader.string("notificationDescription"))
        try readExtras(&reader)
    }

    /// Reads `byReason` and `localizations` (the texts being read by the caller, which may
    /// default them).
    public mutating func readExtras(_ reader: inout JSONObjectReader) throws(ValidationError) {
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
                var localization = Localization(
                    notificationTitle: try Self.title(&textReader),
                    notificationDescription: try textReader.string("notificationDescription"))
                if let object = try textReader.object("byReason") {
                    localization.byReason = try Self.byReason(object, path: textReader.fieldPath("byReason"))
                }
                try Self.rejectUnknown(textReader, "notificationTitle, notificationDescription, byReason")
                localizations[tag] = localization
            }
            self.localizations = localizations
        }
    }

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
            result[reason] = Texts(
                notificationTitle: try title(&reader),
                notificationDescription: try reader.string("notificationDescription"))
            try rejectUnknown(reader, "notificationTitle, notificationDescription")
        }
        return result
    }

    private static func title(_ reader: inout JSONObjectReader) throws(ValidationError) -> String? {
        let title = try reader.string("notificationTitle")
        if let title, title.isBlank {
            throw ValidationError(field: reader.fieldPath("notificationTitle"), reason: "must not be empty")
        }
        return title
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
                    var members = Texts(
                        notificationTitle: localization.notificationTitle,
                        notificationDescription: localization.notificationDescription
                    ).members
                    if !localization.byReason.isEmpty { members.append(("byReason", json(localization.byReason))) }
                    return (tag, .object(JSONObject(members)))
                }))
    }

    /// The whole set, as a variant would show it.
    public var json: JSONValue {
        var members = Texts(notificationTitle: notificationTitle, notificationDescription: notificationDescription)
            .members
        members.append(("byReason", Self.json(byReason)))
        members.append(("localizations", Self.json(localizations)))
        return .object(JSONObject(members))
    }
}

extension CopySet.Texts {
    fileprivate var members: [(key: String, value: JSONValue)] {
        var members: [(key: String, value: JSONValue)] = []
        if let notificationTitle { members.append(("notificationTitle", .string(notificationTitle))) }
        if let notificationDescription { members.append(("notificationDescription", .string(notificationDescription))) }
        return members
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
