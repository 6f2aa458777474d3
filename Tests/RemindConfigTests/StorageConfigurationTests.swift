import Foundation
import RemindConfig
import RemindCore
import Testing

struct StorageConfigurationTests {
    /// Each refusal names the key path; none quotes the URL (it may hold a password).
    @Test(arguments: [
        (#"{"storage":{"type":"mysql"}}"#, "storage.type"),
        (#"{"storage":{"type":"postgres"}}"#, "storage.url"),
        (#"{"storage":{"type":"postgres","url":"http://x@h/db"}}"#, "storage.url"),
        (#"{"storage":{"type":"postgres","url":"postgresql://h/db"}}"#, "storage.url"),
        (#"{"storage":{"type":"postgres","url":"postgresql://u:pw@h/db?sslmode=maybe"}}"#, "storage.url"),
        (#"{"storage":{"type":"postgres","url":"postgresql://u:pw@h/db?colour=red"}}"#, "storage.url"),
        (#"{"storage":{"type":"postgres","url":"postgresql://u@h/db","urlFile":"/f"}}"#, "storage.urlFile"),
        (#"{"storage":{"url":"postgresql://u@h/db"}}"#, "storage.type"),
        (#"{"storage":{"type":"postgres","url":"postgresql://u@h/db","leaseSeconds":1}}"#, "storage.leaseSeconds"),
        (#"{"storage":{"type":"postgres","url":"postgresql://u@h/db","poolSize":0}}"#, "storage.poolSize"),
        (#"{"storage":{"type":"postgres","url":"postgresql://u@h/db","pool":3}}"#, "storage.pool"),
        (#"{"storage":{"parts":0}}"#, "storage.parts"),
        (#"{"storage":{"parts":65}}"#, "storage.parts"),
        (#"{"storage":{"parts":"2"}}"#, "storage.parts"),
        (#"{"storage":{"type":"postgres","url":"postgresql://u@h/db","parts":2}}"#, "storage.parts"),
    ])
    func badStorageIsRefusedNamingTheKeyPath(text: String, field: String) throws {
        let error = try #require(refusal(text))
        #expect(error.field == field, "\(error)")
        #expect(!error.description.contains("pw@"))
    }

    /// A socket directory in `host=` (or as the host) is a Unix socket; a name is TCP with TLS
    /// preferred; the user names the database when the path does not.
    @Test func urlsReadAsLibpqReadsThem() throws {
        let socket = try DatabaseURL(parsing: "postgresql://remindd@/remindd?host=/run/postgresql", field: "url")
        #expect(socket.endpoint == .unixSocket(path: "/run/postgresql/.s.PGSQL.5432"))
        #expect(socket.username == "remindd" && socket.database == "remindd" && socket.tls == .disable)
        let tcp = try DatabaseURL(parsing: "postgres://app:s%40cret@db.internal:6432/state", field: "url")
        #expect(tcp.endpoint == .tcp(host: "db.internal", port: 6432))
        #expect(tcp.password == "s@cret" && tcp.database == "state" && tcp.tls == .prefer)
        let bare = try DatabaseURL(parsing: "postgresql://app@db?sslmode=require", field: "url")
        #expect(bare.database == "app" && bare.tls == .require)
    }

    /// The password never reaches the effective configuration or a message.
    @Test func passwordIsNeverShown() throws {
        let configuration = try parse(
            #"{"storage":{"type":"postgres","url":"postgresql://app:hunter2@db:5432/state","leaseSeconds":10}}"#)
        let json = configuration.json.serialized
        #expect(!json.contains("hunter2"))
        #expect(json.contains(#""url":"postgresql://app:***@db:5432/state?sslmode=prefer""#))
        #expect(json.contains(#""leaseSeconds":10"#))
        #expect(configuration.storage.url?.description.contains("hunter2") == false)
    }

    /// `urlFile` is read when the store opens: surrounding whitespace ignored; an unreadable
    /// file is an error naming `storage.urlFile`, and a bad URL in it never quotes the file.
    @Test func urlFileIsReadAndChecked() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/url"
        try "  postgresql://app:hunter2@/state?host=/run/postgresql\n".write(
            toFile: path, atomically: true, encoding: .utf8)
        let configuration = try parse(#"{"storage":{"type":"postgres","urlFile":"\#(path)"}}"#)
        #expect(!configuration.json.serialized.contains("hunter2"))
        let url = try #require(try configuration.storage.resolvedURL())
        #expect(url.password == "hunter2" && url.database == "state")
        let missing = try parse(#"{"storage":{"type":"postgres","urlFile":"\#(path).gone"}}"#)
        #expect(throws: ValidationError.self) { try missing.storage.resolvedURL() }
        try "mysql://app:hunter2@h/db".write(toFile: path, atomically: true, encoding: .utf8)
        do {
            _ = try configuration.storage.resolvedURL()
            Issue.record("a bad URL in urlFile was accepted")
        } catch {
            #expect(error.field == "storage.urlFile" && !error.description.contains("hunter2"))
        }
    }
}
