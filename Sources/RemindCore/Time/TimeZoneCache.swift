import Foundation
import Synchronization

/// IANA time zones by name, looked up once: `TimeZone(identifier:)` reads the zone database,
/// and the report path asks for the same few hundred zones millions of times.
public enum TimeZoneCache {
    private static let zones = Mutex<[String: TimeZone?]>([:])

    public static func zone(_ identifier: String) -> TimeZone? {
        if let cached = zones.withLock({ $0[identifier] }) {
            return cached
        }
        let zone = TimeZone(identifier: identifier)
        zones.withLock { cache in
            // A bounded cache: hostile input must not grow memory without end.
            if cache.count > 4096 { cache.removeAll(keepingCapacity: true) }
            cache[identifier] = zone
        }
        return zone
    }

    public static func isValid(_ identifier: String) -> Bool {
        // TimeZone accepts abbreviations and offsets like "GMT+1"; an IANA name has a slash,
        // or is one of the few single-word zones such as "UTC".
        guard !identifier.isEmpty, identifier.count <= 64, zone(identifier) != nil else { return false }
        return identifier.contains("/") || ["UTC", "GMT", "Etc/UTC"].contains(identifier)
            || TimeZone.knownTimeZoneIdentifiers.contains(identifier)
    }
}
