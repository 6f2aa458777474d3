import RemindCore

/// The configuration's `experiment` section (docs/outcomes.md):
/// `{"holdoutPercent":10,"defaultWeight":1,"variants":[{"name":"mileage","weight":1,
/// "notificationTitle":…,"notificationDescription":…,"byReason":{…},"localizations":{…}}]}`.
///
/// Refused, naming the key path: a percentage outside 0…100, a negative weight, no positive
/// weight at all (nobody could be assigned), a name that is not `[A-Za-z0-9_-]{1,64}`, a
/// repeated name, `default` or `holdout` as a variant's name, an invalid `allocation`
/// (`Allocation+JSON.swift`).
extension Experiment {
    init(object: JSONObject, path: String) throws(ValidationError) {
        var reader = try JSONObjectReader.strict(object, path: path)
        self.init()
        if let percent = try reader.number("holdoutPercent") {
            guard (0...100).contains(percent) else {
                throw ValidationError(field: reader.fieldPath("holdoutPercent"), reason: "must be from 0 to 100")
            }
            holdoutPercent = percent
        }
        if let weight = try reader.number("defaultWeight") {
            guard weight >= 0, weight.isFinite else {
                throw ValidationError(field: reader.fieldPath("defaultWeight"), reason: "must be at least 0")
            }
            defaultWeight = weight
        }
        var names: Set<String> = []
        for (index, element) in (try reader.array("variants") ?? []).enumerated() {
            let variantPath = reader.fieldPath("variants") + "[\(index)]"
            guard case .object(let variantObject) = element else {
                throw ValidationError(field: variantPath, reason: "must be an object, got \(element.typeName)")
            }
            var variantReader = try JSONObjectReader.strict(variantObject, path: variantPath)
            let name = try variantReader.required(variantReader.string("name"), "name")
            let namePath = variantReader.fieldPath("name")
            guard (1...64).contains(name.utf8.count), name.utf8.allSatisfy(Self.isNameCharacter) else {
                throw ValidationError(field: namePath, reason: "must be 1 to 64 characters from A-Z a-z 0-9 _ -")
            }
            guard !Self.reservedNames.contains(name) else {
                throw ValidationError(
                    field: namePath, reason: "\"\(name)\" is reserved (default, holdout, byReason, byPlatform)")
            }
            guard names.insert(name).inserted else {
                throw ValidationError(field: namePath, reason: "\"\(name)\" names another variant already")
            }
            var weight = 1.0
            if let given = try variantReader.number("weight") {
                guard given >= 0, given.isFinite else {
                    throw ValidationError(field: variantReader.fieldPath("weight"), reason: "must be at least 0")
                }
                weight = given
            }
            let copy = try CopySet(reading: &variantReader)
            try variantReader.rejectUnknownKeys(
                context:
                    "for a variant (name, weight, \(CopySet.keyNames), byReason, localizations, platforms)")
            variants.append(Variant(name: name, weight: weight, copy: copy))
        }
        if let value = reader.value("allocation") {
            // Read after the variants: the floor must fit the groups that take part.
            let groups = configuredWeights.count { $0.weight > 0 }
            allocation = try Allocation(json: value, path: reader.fieldPath("allocation"), groups: groups)
        }
        guard defaultWeight > 0 || variants.contains(where: { $0.weight > 0 }) || holdoutPercent == 100 else {
            throw ValidationError(
                field: reader.fieldPath("variants"),
                reason: "no group has a positive weight: defaultWeight or a variant's weight must be above 0")
        }
        try reader.rejectUnknownKeys(context: "(holdoutPercent, defaultWeight, variants, allocation)")
    }

    static func isNameCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"):
            true
        default: false
        }
    }

    var json: JSONValue {
        .object([
            "holdoutPercent": .double(holdoutPercent),
            "defaultWeight": .double(defaultWeight),
            "variants": .array(
                variants.map { variant in
                    var members: [(key: String, value: JSONValue)] = [
                        (key: "name", value: .string(variant.name)), (key: "weight", value: .double(variant.weight)),
                    ]
                    if case .object(let copy) = variant.copy.json { members += copy.members }
                    return .object(JSONObject(members))
                }),
            "allocation": allocation.json,
        ])
    }
}
