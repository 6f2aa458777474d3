import AsyncHTTPClient
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import RemindAPI
import RemindConfig
import RemindCore
import RemindStore
import RemindTesting
import Testing

@testable import RemindDaemon

#if canImport(Glibc)
    import Glibc
#endif

/// One in-process remindd API for one test: a temp directory of its own (the store's `flock`
/// is per state directory), a `FileStateStore` in `state/`, a `DaemonRuntime` whose wall clock is a
/// `ManualClock`, and the real `APIResponder` (the router of `APIRoutes`) with `.open` access, driven through
/// HummingbirdTesting's router client. Reloads read `remindd.json` in the temp directory with
/// the daemon's own loader, so a test changes the configuration by writing that file.
struct APIHarness: Sendable {
    /// The name of the file sink that `withAPI(sink: true)` configures; its outbox is read
    /// directly, as no dispatcher runs.
    static let sinkName = "events"

    /// The temp directory; the state directory is `state/` inside it.
    let root: String
    let clock: ManualClock
    let store: FileStateStore
    let runtime: DaemonRuntime

    var stateDirectory: String { root + "/state" }
    var configurationPath: String { root + "/remindd.json" }

    /// The next reload reads this.
    func writeConfiguration(_ json: String) throws {
        try json.write(toFile: configurationPath, atomically: false, encoding: .utf8)
    }

    /// Writes every changed user file, as the daemon's checkpointer would.
    func checkpoint() async throws {
        try await store.checkpoint(snapshot: false)
    }

    func userFilePath(_ id: String) async -> String {
        await store.userFilePath(Fixtures.userID(id))
    }

    /// Every regular file under `directory`, by relative path, with its size.
    static func files(under directory: String) -> [String: Int] {
        var files: [String: Int] = [:]
        guard let walker = FileManager.default.enumerator(atPath: directory) else { return files }
        while let relative = walker.nextObject() as? String {
            let attributes = walker.fileAttributes ?? [:]
            guard attributes[.type] as? FileAttributeType != .typeDirectory else { continue }
            files[relative] = (attributes[.size] as? NSNumber)?.intValue ?? 0
        }
        return files
    }

    /// RFC 3339 text of the clock's wall time plus `offset` seconds.
    func wallTime(plus offset: Double = 0) -> String {
        RFC3339.format(clock.wallNow.addingTimeInterval(offset))
    }
}

/// Runs `body` against a fresh in-process API and tears it down (store closed, directory
/// removed) whatever happens.
///
/// - Parameters:
///   - sink: configure one file sink named `APIHarness.sinkName` (journal and file sinks get
///     handles; other sink types are only configuration, which is all `/v1/config` needs).
///   - configure: changes to the configuration the daemon starts with.
@discardableResult
func withAPI<T: Sendable>(
    sink: Bool = false,
    access: AccessPolicy = .open,
    configure: (inout DaemonConfiguration, _ root: String) throws -> Void = { _, _ in },
    _ body: @Sendable (APIHarness, any TestClientProtocol) async throws -> T
) async throws -> T {
    var template = Array("/tmp/remindd-api-XXXXXX".utf8CString)
    guard let made = mkdtemp(&template) else { throw POSIXError(.EIO) }
    let root = String(cString: made)
    defer { try? FileManager.default.removeItem(atPath: root) }

    let defaults = ConfigurationLoader.Defaults(
        stateDirectory: root + "/state", socket: root + "/s.sock", configurationPath: root + "/remindd.json")
    var configuration = DaemonConfiguration(defaults: defaults)
    configuration.sinks =
        sink
        ? [SinkConfiguration(name: APIHarness.sinkName, kind: .file(.init(path: root + "/events.jsonl")))] : []
    try configure(&configuration, root)

    let logger = Logger(label: "remindd.test") { _ in SwiftLogNoOpLogHandler() }
    let clock = ManualClock()
    let store = try FileStateStore(
        options: .init(
            directory: configuration.stateDirectory, sinks: configuration.sinks.map(\.name)),
        policy: ReminderPolicy(configuration: configuration.policy), now: clock.wallNow, notice: { _ in })
    let result: Result<T, any Error>
    do {
        var clients: [HTTPClient] = []
        let handles = try Daemon.makeSinks(
            configuration.sinks.filter { $0.type == .file || $0.type == .journal }, logger: logger,
            metrics: DaemonMetrics(), io: .singleton, directory: store, wallClock: { clock.wallNow },
            clients: &clients)
        let configurationPath = root + "/remindd.json"
        let runtime = DaemonRuntime(
            configuration: configuration, store: store, sinks: handles, logger: logger,
            wallClock: { clock.wallNow },
            reread: { () throws(ConfigurationError) -> DaemonConfiguration in
                try ConfigurationLoader.load(
                    path: configurationPath, environment: [:], stateDirectoryFlag: nil, socketFlag: nil,
                    defaults: defaults)
            })
        let harness = APIHarness(root: root, clock: clock, store: store, runtime: runtime)
        let app = Application(responder: APIResponder(runtime: runtime, access: access), logger: logger)
        result = .success(try await app.test(.router) { client in try await body(harness, client) })
    } catch {
        result = .failure(error)
    }
    await store.close()
    return try result.get()
}

extension TestClientProtocol {
    func get(_ uri: String) async throws -> TestResponse {
        try await execute(uri: uri, method: .get)
    }

    func delete(_ uri: String) async throws -> TestResponse {
        try await execute(uri: uri, method: .delete)
    }

    func post(_ uri: String, _ body: String? = nil) async throws -> TestResponse {
        try await execute(
            uri: uri, method: .post, headers: [.contentType: "application/json"],
            body: body.map { ByteBuffer(string: $0) })
    }

    /// Stores a report for `user` and expects it accepted.
    @discardableResult
    func report(
        _ user: String, _ body: String, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws
        -> TestResponse
    {
        let response = try await post("/v1/users/\(user)/reports", body)
        #expect(response.status == .ok, "report refused: \(response.text)", sourceLocation: sourceLocation)
        return response
    }
}

extension TestResponse {
    var text: String { String(buffer: body) }

    var contentType: String? { headers[.contentType] }

    func json(sourceLocation: SourceLocation = #_sourceLocation) throws -> JSONValue {
        do {
            return try JSONParser.parse(Array(body.readableBytesView))
        } catch {
            Issue.record("response is not JSON: \(text)", sourceLocation: sourceLocation)
            throw error
        }
    }

    /// The top-level object of a JSON response.
    func object(sourceLocation: SourceLocation = #_sourceLocation) throws -> JSONObject {
        guard case .object(let object) = try json(sourceLocation: sourceLocation) else {
            Issue.record("response is not a JSON object: \(text)", sourceLocation: sourceLocation)
            throw POSIXError(.EINVAL)
        }
        return object
    }
}

/// JSON as canonical text: object members sorted by key, so two documents compare equal
/// exactly when they have the same keys and values, whatever the order.
func canonicalJSON(_ value: JSONValue) -> String {
    func sorted(_ value: JSONValue) -> JSONValue {
        switch value {
        case .object(let object):
            return .object(
                JSONObject(object.members.sorted { $0.key < $1.key }.map { (key: $0.key, value: sorted($0.value)) }))
        case .array(let elements):
            return .array(elements.map(sorted))
        default:
            return value
        }
    }
    var writer = JSONWriter()
    writer.value(sorted(value))
    return writer.string
}

/// Expects a JSON response equal to `expected` (keys in any order, no key more or less).
func expectJSON(
    _ response: TestResponse, equals expected: String, sourceLocation: SourceLocation = #_sourceLocation
) throws {
    #expect(response.contentType == "application/json", sourceLocation: sourceLocation)
    let actual = try response.json(sourceLocation: sourceLocation)
    let wanted = try JSONParser.parse(expected)
    #expect(canonicalJSON(actual) == canonicalJSON(wanted), sourceLocation: sourceLocation)
}

/// Expects an RFC 9457 problem: the media type, `type`/`title`/`status`/`detail`, and `field`
/// naming the input at fault (absent when `field` is nil).
@discardableResult
func expectProblem(
    _ response: TestResponse, status: Int, field: String?, sourceLocation: SourceLocation = #_sourceLocation
) throws -> JSONObject {
    #expect(Int(response.status.code) == status, "\(response.text)", sourceLocation: sourceLocation)
    #expect(response.contentType == "application/problem+json", sourceLocation: sourceLocation)
    let problem = try response.object(sourceLocation: sourceLocation)
    #expect(problem["status"] == .int(Int64(status)), sourceLocation: sourceLocation)
    guard case .string(let title)? = problem["title"], !title.isEmpty else {
        Issue.record("problem without a title: \(response.text)", sourceLocation: sourceLocation)
        return problem
    }
    guard case .string(let detail)? = problem["detail"], !detail.isEmpty else {
        Issue.record("problem without a detail: \(response.text)", sourceLocation: sourceLocation)
        return problem
    }
    #expect(problem["type"] != nil, sourceLocation: sourceLocation)
    #expect(problem["field"] == field.map(JSONValue.string), "\(response.text)", sourceLocation: sourceLocation)
    let allowed: Set<String> = ["type", "title", "status", "detail", "field"]
    #expect(Set(problem.keys).isSubset(of: allowed), "\(response.text)", sourceLocation: sourceLocation)
    return problem
}

/// A documented (or served) path template and method.
struct Route: Hashable, Sendable, CustomStringConvertible {
    var path: String
    var method: String

    init(_ path: String, _ method: String) {
        self.path = path
        self.method = method
    }

    var description: String { "\(method) \(path)" }
}

/// What one request got, for checking against the document.
struct Observation: Sendable {
    var route: Route
    var status: Int
    var contentType: String?
    var body: String

    init(_ operation: OpenAPIDocument.Operation, _ response: TestResponse) {
        route = operation.route
        status = Int(response.status.code)
        contentType = response.contentType
        body = response.text
    }
}

/// `python3`, for reading YAML and validating against the document.
enum Python {
    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    static func run(_ script: String, arguments: [String]) throws -> Result {
        // The test process's environment: python finds its packages by HOME and PATH.
        let result = try SpawnedProcess.run(
            "/usr/bin/env", ["python3", "-c", script] + arguments, environment: ProcessInfo.processInfo.environment)
        return Result(status: result.status, stdout: result.standardOutput, stderr: result.standardError)
    }

    static func canImport(_ module: String) -> Bool {
        (try? run("import \(module)", arguments: []).status) == 0
    }
}

extension TestClientProtocol {
    /// `POST /v1/reports` with an NDJSON body.
    func postNDJSON(_ body: String) async throws -> TestResponse {
        try await execute(
            uri: "/v1/reports", method: .post, headers: [.contentType: "application/x-ndjson"],
            body: ByteBuffer(string: body))
    }
}
