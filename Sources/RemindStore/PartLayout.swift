import RemindCore

/// How a state directory is divided (`storage.parts`): the files of one store at its top, or
/// `part-<i>-of-<n>/` directories, each holding the files of one part of a
/// `PartitionedStateStore`. A user belongs to one part for good (a stable hash of the ID), so a
/// directory is opened only with the division it was created with: with another, users would
/// be looked for in the wrong part, and their state would seem lost. `remindd migrate` moves a
/// state into another division (a new directory).
enum PartLayout {
    static func name(_ index: Int, of count: Int) -> String { "part-\(index)-of-\(count)" }

    /// The part a user belongs to: the low bits of the hash that also names their file's
    /// directories (stable across runs and machines, unlike `hashValue`).
    static func index(of userID: UserID, parts count: Int) -> Int {
        Int(StableHash.mixed(userID.rawValue) % UInt64(count))
    }

    /// Throws, naming `storage.parts`, unless the directory is new or divided into `parts`.
    static func check(_ directory: String, parts: Int) throws(StoreError) {
        let names = FileIO.list(directory)
        let counts = Set(names.compactMap(partCount))
        let single = names.contains(UserFiles.usersDirectoryName)
        let found: Int
        let holds: String
        switch (single, counts.count) {
        case (false, 0):
            return  // new: any division may start here
        case (true, 0):
            (found, holds) = (1, "holds a single store (users/ at its top)")
        case (false, 1):
            found = counts.first!
            holds = "holds \(found) parts (\(name(0, of: found)) …)"
        default:
            let listed = names.sorted().joined(separator: ", ")
            throw .layout(
                directory,
                "holds both a single store and parts, or parts of two divisions (\(listed)): move the stray ones away")
        }
        guard found != parts else { return }
        throw .layout(
            directory,
            "\(holds); storage.parts is \(parts). Set storage.parts to \(found), or move the state into \(parts) parts with remindd migrate"
        )
    }

    /// `n` for a name `part-<i>-of-<n>`.
    private static func partCount(_ name: String) -> Int? {
        guard name.hasPrefix("part-"), let of = name.range(of: "-of-") else { return nil }
        return Int(name[of.upperBound...])
    }
}
