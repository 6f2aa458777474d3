import RemindAPI
import RemindConfig
import RemindCore

/// Who sent a request, as `GET /v1/whoami` answers and audit entries name it: a token's
/// holder on TCP, `uid:<n>` on the Unix socket.
public struct Caller: Sendable, Equatable {
    public enum Transport: String, Sendable {
        case unix
        case tcp
    }

    public var name: String
    public var scope: AccessScope
    public var transport: Transport

    public init(name: String, scope: AccessScope, transport: Transport) {
        self.name = name
        self.scope = scope
        self.transport = transport
    }

    var jsonBytes: [UInt8] {
        var writer = JSONWriter(reservingCapacity: 96)
        writer.beginObject()
        writer.member("name", name)
        writer.member("scope", scope.rawValue)
        writer.member("transport", transport.rawValue)
        writer.endObject()
        return writer.bytes
    }
}
