import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The `Date` header's value (RFC 9110's IMF-fixdate), formatted at most once a second for the
/// whole process: every answer carries it, the router's and the report fast path's alike.
enum HTTPDate {
    private static let cache = Mutex((second: 0, text: ""))

    static var now: String {
        var now = time(nil)
        if let text = cache.withLock({ $0.second == Int(now) ? $0.text : nil }) { return text }
        var parts = tm()
        gmtime_r(&now, &parts)
        var buffer = [Int8](repeating: 0, count: 64)
        let length = strftime(&buffer, buffer.count, "%a, %d %b %Y %H:%M:%S GMT", &parts)
        let text = String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        cache.withLock { $0 = (Int(now), text) }
        return text
    }
}
