import Foundation
import RemindCore

/// A `listen.tcp` address: `host:port`, where host is an IPv4 address (`127.0.0.1`), an IPv6
/// address in brackets (`[::1]`) or a host name (`localhost`).
///
/// IPv6 addresses need brackets because their colons would otherwise be read as the port
/// separator; a host is required (`0.0.0.0:8650` listens everywhere) so that exposing the API
/// on every interface is always written out.
public struct TCPAddress: Sendable, Equatable, CustomStringConvertible {
    /// The host without brackets, ready to bind: `127.0.0.1`, `::1`, `localhost`.
    public var host: String
    public var port: Int

    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// Parses `host:port`; errors name `field`.
    public init(_ text: String, field: String = "listen.tcp") throws(ValidationError) {
        func invalid(_ reason: String) -> ValidationError {
            ValidationError(field: field, reason: reason)
        }
        let example = "e.g. 127.0.0.1:8650, [::1]:8650 or localhost:8650"
        let host: String
        let portText: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else {
                throw invalid("must be [IPv6 address]:port, \(example); got \"\(text)\"")
            }
            host = String(text[text.index(after: text.startIndex)..<close])
            portText = text[text.index(close, offsetBy: 2)...]
            guard Self.isIPv6(host) else { throw invalid("\"\(host)\" is not an IPv6 address") }
        } else {
            guard let colon = text.lastIndex(of: ":") else {
                throw invalid("must be host:port, \(example); got \"\(text)\"")
            }
            host = String(text[..<colon])
            portText = text[text.index(after: colon)...]
            if host.contains(":") { throw invalid("an IPv6 address must be in brackets, e.g. [::1]:8650") }
            guard !host.isEmpty else { throw invalid("needs a host before the port, \(example)") }
            if let reason = Self.hostProblem(host) { throw invalid(reason) }
        }
        guard !portText.isEmpty, portText.allSatisfy(\.isASCIIDigit), let port = Int(portText),
            (1...65535).contains(port)
        else {
            throw invalid("port must be a number from 1 to 65535, got \"\(portText)\"")
        }
        self.init(host: host, port: port)
    }

    /// `host:port` as written in the configuration, with brackets around IPv6 hosts.
    public var description: String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    static func isIPv6(_ text: String) -> Bool {
        var address = in6_addr()
        return inet_pton(AF_INET6, text, &address) == 1
    }

    static func isIPv4(_ text: String) -> Bool {
        var address = in_addr()
        return inet_pton(AF_INET, text, &address) == 1
    }

    /// Why `host` is neither a dotted IPv4 address nor an RFC 1123 host name, or nil.
    static func hostProblem(_ host: String) -> String? {
        // Digits and dots only is meant as an IPv4 address: `10.0.0.300` must not pass as a name.
        if host.allSatisfy({ $0.isASCIIDigit || $0 == "." }) {
            return isIPv4(host) ? nil : "\"\(host)\" is not an IPv4 address"
        }
        let labels = host.split(separator: ".", omittingEmptySubsequences: false)
        let valid =
            host.utf8.count <= 253
            && labels.allSatisfy { label in
                (1...63).contains(label.count) && label.first != "-" && label.last != "-"
                    && label.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }
            }
        return valid ? nil : "\"\(host)\" is not a valid host name or IP address"
    }
}

extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}
