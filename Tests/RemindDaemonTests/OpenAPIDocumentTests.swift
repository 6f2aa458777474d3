import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import RemindConfig
import RemindCore
import RemindTesting
import Testing

/// `openapi.yaml` documents exactly what the server does: every documented operation answers
/// a request the document calls valid with a status (and media type and schema) it lists, the
/// error statuses the tests can provoke are listed where they occur, and the document has
/// exactly the routes the server serves.
///
/// YAML is read by PyYAML (`python3`), as the package has no YAML parser; schemas are checked
/// with `jsonschema` and the whole document with `openapi-spec-validator` when importable.
@Suite(.ownThread)
struct OpenAPIDocumentTests {
    /// The routes the router serves (`APIRoutes`, docs/api.md).
    static let servedRoutes: Set<Route> = [
        Route("/v1/users/{userID}/reports", "POST"), Route("/v1/users/{userID}", "GET"),
        Route("/v1/users/{userID}", "DELETE"), Route("/v1/users/{userID}/history", "GET"),
        Route("/v1/users/{userID}/explain", "GET"), Route("/v1/reminders", "GET"), Route("/v1/status", "GET"),
        Route("/v1/stats", "GET"),
        Route("/v1/reload", "POST"), Route("/v1/config", "GET"), Route("/metrics", "GET"),
        Route("/v1/dead-letters", "GET"), Route("/v1/dead-letters/replay", "POST"), Route("/v1/whoami", "GET"),
        Route("/ui/", "GET"), Route("/v1/users", "GET"), Route("/v1/reports", "POST"),
        Route("/v1/users/{userID}/events", "POST"),
    ]

    static let documentPath = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("openapi.yaml").path

    /// The document has exactly the routes the server serves: none missing, none invented.
    @Test func documentListsExactlyTheServedRoutes() throws {
        let document = try OpenAPIDocument.load(Self.documentPath)
        #expect(Set(document.operations.map(\.route)) == Self.servedRoutes)
        #expect(document.version.hasPrefix("3.1"))
    }

    /// Every documented operation, sent the request its examples describe, answers with a
    /// documented status, media type and body schema.
    @Test func everyOperationAnswersAsDocumented() async throws {
        let document = try OpenAPIDocument.load(Self.documentPath)
        // Services, copy and asks, so that their shapes in the answers are checked too (the
        // example user's first report gets the ask the events example names).
        let configuration =
            #"{"inApp":{"enabled":true},"services":{"driving":{"requires":["location","always"],"optional":["precise","motion"]}},"#
            + #""notification":{"remindFor":["locationNotAuthorizedAlways","motionNotAuthorized"],"#
            + #""byReason":{"motionNotAuthorized":{"notificationDescription":"Allow Motion & Fitness."}},"#
            + #""localizations":{"de":{"notificationTitle":"Keine Fahrten","#
            + #""byReason":{"motionNotAuthorized":{"notificationTitle":"Bewegung"}}}}}}"#
        let parsed = try DaemonConfiguration(parsing: Array(configuration.utf8))
        let observations = try await withAPI(configure: { started, _ in
            started.services = parsed.services
            started.notification = parsed.notification
            started.inApp = parsed.inApp
        }) { api, client in
            try api.writeConfiguration(configuration)
            var observations: [Observation] = []
            // Reports first (they create the example user), deletes last.
            let ordered = document.operations.sorted { $0.order < $1.order }
            for operation in ordered {
                let response = try await client.execute(
                    uri: operation.exampleURI(), method: HTTPRequest.Method(operation.route.method)!,
                    headers: operation.exampleBody == nil ? [:] : [.contentType: operation.exampleMediaType],
                    body: operation.exampleBody.map { ByteBuffer(string: $0) })
                observations.append(Observation(operation, response))
                #expect(response.status.code / 100 == 2, "\(operation.route): \(response.text)")
            }
            return observations
        }
        try expectDocumented(observations, in: document)
    }

    /// The error statuses a test can provoke are documented for each operation that gives them:
    /// 400 for a malformed user ID or query parameter, 404 for an unknown user, 413 for a large
    /// report, 415 for bulk reports that are not NDJSON, 422 for an invalid reload.
    @Test func errorStatusesAreDocumented() async throws {
        let document = try OpenAPIDocument.load(Self.documentPath)
        let observations = try await withAPI { api, client in
            try api.writeConfiguration(#"{"history":{"maxEntries":0}}"#)
            var observations: [Observation] = []
            for operation in document.operations {
                var requests: [(uri: String, body: String?)] = []
                if operation.route.path.contains("{userID}") {
                    requests.append((operation.exampleURI(userID: "%2E%2E"), operation.exampleBody))
                    if operation.route.method != "POST" {
                        requests.append((operation.exampleURI(userID: "nobody"), operation.exampleBody))
                    }
                }
                for name in operation.queryParameters {
                    // `0` is a valid user ID, so `after` is given one that is not.
                    let invalid = name == "after" ? ".." : "0"
                    requests.append((operation.exampleURI(query: [name: invalid]), operation.exampleBody))
                }
                var mediaType: String?
                if operation.route.path.hasSuffix("{userID}/reports") {
                    requests.append((operation.exampleURI(), String(repeating: " ", count: 70_000)))
                }
                if operation.route.path == "/v1/reports" {
                    // Without a media type: 415; then NDJSON over 16 MiB: 413.
                    let response = try await client.execute(
                        uri: operation.exampleURI(), method: .post, body: ByteBuffer(string: "{}\n"))
                    observations.append(Observation(operation, response))
                    mediaType = operation.exampleMediaType
                    requests.append((operation.exampleURI(), String(repeating: "\n", count: 16 * 1024 * 1024 + 1)))
                }
                if operation.route.path == "/v1/reload" {
                    requests.append((operation.exampleURI(), nil))
                }
                for (uri, body) in requests {
                    let response = try await client.execute(
                        uri: uri, method: HTTPRequest.Method(operation.route.method)!,
                        headers: mediaType.map { [.contentType: $0] } ?? [:],
                        body: body.map { ByteBuffer(string: $0) })
                    #expect(response.status.code >= 400, "\(operation.route) \(uri): \(response.status)")
                    observations.append(Observation(operation, response))
                }
            }
            return observations
        }
        let statuses = Set(observations.map(\.status))
        #expect(statuses == [400, 404, 413, 415, 422])
        try expectDocumented(observations, in: document)
    }

    /// Every documented path answers any method it does not list with a 405 problem whose
    /// `Allow` header is exactly the documented methods.
    @Test func undocumentedMethodsAreNotAllowed() async throws {
        let document = try OpenAPIDocument.load(Self.documentPath)
        #expect(document.componentResponses.contains("MethodNotAllowed"))
        let byPath = Dictionary(grouping: document.operations, by: \.route.path)
        try await withAPI { _, client in
            for (path, operations) in byPath {
                let documented = Set(operations.map(\.route.method))
                let uri = operations[0].exampleURI()
                for method in ["GET", "POST", "PUT", "DELETE", "PATCH"] where !documented.contains(method) {
                    let response = try await client.execute(uri: uri, method: HTTPRequest.Method(method)!)
                    #expect(response.status.code == 405, "\(method) \(path)")
                    #expect(response.contentType == "application/problem+json")
                    let allowed = (response.headers[.allow] ?? "").split(separator: ",").map {
                        $0.trimmingCharacters(in: .whitespaces)
                    }
                    #expect(Set(allowed) == documented, "\(method) \(path): Allow \(allowed)")
                }
            }
        }
    }

    /// The document is valid OpenAPI 3.1 per `openapi-spec-validator`.
    @Test(.enabled(if: Python.canImport("openapi_spec_validator"), "openapi-spec-validator is not installed"))
    func documentIsValidOpenAPI() throws {
        let result = try Python.run(
            """
            import sys
            from openapi_spec_validator import validate
            from openapi_spec_validator.readers import read_from_filename
            spec, _ = read_from_filename(sys.argv[1])
            validate(spec)
            """, arguments: [Self.documentPath])
        #expect(result.status == 0, "\(result.stderr)")
    }

    /// Checks each observation against the document: status listed for the operation, media
    /// type listed for that status, and the body valid against its schema (with `jsonschema`).
    private func expectDocumented(
        _ observations: [Observation], in document: OpenAPIDocument, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        for observation in observations {
            let route = observation.route
            guard let operation = document.operations.first(where: { $0.route == route }) else {
                Issue.record("\(route) is not documented", sourceLocation: sourceLocation)
                continue
            }
            let status = String(observation.status)
            guard let mediaTypes = operation.responses[status] else {
                Issue.record(
                    "\(route) answered \(status), not documented (\(operation.responses.keys.sorted()))",
                    sourceLocation: sourceLocation)
                continue
            }
            if mediaTypes.isEmpty {
                #expect(observation.body.isEmpty, "\(route) \(status) has a body", sourceLocation: sourceLocation)
            } else {
                let mediaType = observation.contentType?.split(separator: ";").first.map(String.init) ?? ""
                #expect(
                    mediaTypes.contains(mediaType), "\(route) \(status): \(mediaType) not in \(mediaTypes)",
                    sourceLocation: sourceLocation)
            }
        }
        guard Python.canImport("jsonschema") else {
            Issue.record(
                "python3's jsonschema is not installed: bodies not checked against their schemas", severity: .warning)
            return
        }
        let failures = try document.schemaFailures(observations)
        #expect(failures.isEmpty, "\(failures.joined(separator: "\n"))", sourceLocation: sourceLocation)
    }
}

/// The parts of `openapi.yaml` the tests use: operations with their parameters' examples,
/// request body example and documented responses.
struct OpenAPIDocument: Sendable {
    struct Operation: Sendable {
        var route: Route
        /// Documented status codes, each with its media types (empty: no body).
        var responses: [String: [String]]
        var pathExamples: [String: String]
        var queryExamples: [String: String]
        var exampleBody: String?
        /// The media type of `exampleBody`: JSON, or NDJSON for the bulk route.
        var exampleMediaType = "application/json"

        var queryParameters: [String] { queryExamples.keys.sorted() }

        /// Reports create the example user, so they go first; deletes go last.
        var order: Int {
            route.method == "POST" && route.path.hasSuffix("/reports") ? 0 : route.method == "DELETE" ? 2 : 1
        }

        func exampleURI(userID: String? = nil, query: [String: String]? = nil) -> String {
            var path = route.path
            for (name, value) in pathExamples {
                path = path.replacingOccurrences(of: "{\(name)}", with: name == "userID" ? userID ?? value : value)
            }
            let items = (query ?? queryExamples).sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
            return items.isEmpty ? path : path + "?" + items.joined(separator: "&")
        }
    }

    var path: String
    var version: String
    var operations: [Operation]
    var componentResponses: Set<String>

    struct Malformed: Error, CustomStringConvertible {
        var description: String
    }

    static func load(_ path: String) throws -> OpenAPIDocument {
        let result = try Python.run(
            "import json, sys, yaml; json.dump(yaml.safe_load(open(sys.argv[1])), sys.stdout, default=str)",
            arguments: [path])
        guard result.status == 0 else { throw Malformed(description: "cannot read \(path): \(result.stderr)") }
        guard case .object(let root) = try JSONParser.parse(result.stdout) else {
            throw Malformed(description: "not a mapping")
        }
        func resolve(_ value: JSONValue?) throws -> JSONObject {
            guard case .object(let object)? = value else { throw Malformed(description: "expected a mapping") }
            guard case .string(let reference)? = object["$ref"] else { return object }
            var node = JSONValue.object(root)
            for part in reference.dropFirst(2).split(separator: "/") {
                guard case .object(let parent) = node, let child = parent[String(part)] else {
                    throw Malformed(description: "unresolved \(reference)")
                }
                node = child
            }
            return try resolve(node)
        }
        func text(_ value: JSONValue?) -> String? {
            switch value {
            case .string(let text)?: text
            case .int(let number)?: String(number)
            case .double(let number)?: String(number)
            case .bool(let flag)?: String(flag)
            default: nil
            }
        }
        var operations: [Operation] = []
        for (template, item) in try resolve(root["paths"]).members {
            let pathItem = try resolve(item)
            var shared: [JSONValue] = []
            if case .array(let list)? = pathItem["parameters"] { shared = list }
            for (method, value) in pathItem.members where ["get", "post", "put", "delete", "patch"].contains(method) {
                let operation = try resolve(value)
                var own: [JSONValue] = []
                if case .array(let list)? = operation["parameters"] { own = list }
                var pathExamples: [String: String] = [:]
                var queryExamples: [String: String] = [:]
                for parameter in try (shared + own).map({ try resolve($0) }) {
                    guard let name = text(parameter["name"]), let example = text(parameter["example"]) else {
                        throw Malformed(description: "\(method) \(template): a parameter without name or example")
                    }
                    if text(parameter["in"]) == "path" {
                        pathExamples[name] = example
                    } else {
                        queryExamples[name] = example
                    }
                }
                var exampleBody: String?
                var exampleMediaType = "application/json"
                if operation["requestBody"] != nil,
                    case .object(let content)? = try resolve(operation["requestBody"])["content"]
                {
                    if let json = content["application/json"], let example = try resolve(json)["example"] {
                        var writer = JSONWriter()
                        writer.value(example)
                        exampleBody = writer.string
                    } else if let ndjson = content["application/x-ndjson"],
                        case .string(let example)? = try resolve(ndjson)["example"]
                    {
                        // NDJSON's example is the body's text as it is.
                        exampleBody = example
                        exampleMediaType = "application/x-ndjson"
                    }
                }
                var responses: [String: [String]] = [:]
                for (status, response) in try resolve(operation["responses"]).members {
                    var mediaTypes: [String] = []
                    if case .object(let content)? = try resolve(response)["content"] { mediaTypes = content.keys }
                    responses[status] = mediaTypes
                }
                operations.append(
                    Operation(
                        route: Route(template, method.uppercased()), responses: responses, pathExamples: pathExamples,
                        queryExamples: queryExamples, exampleBody: exampleBody, exampleMediaType: exampleMediaType))
            }
        }
        let components = try resolve(root["components"])
        let responses = (try? resolve(components["responses"]))?.keys ?? []
        return OpenAPIDocument(
            path: path, version: text(root["openapi"]) ?? "", operations: operations,
            componentResponses: Set(responses))
    }

    /// Observations whose body does not match the schema documented for their status and
    /// media type, as `jsonschema` (draft 2020-12, OpenAPI 3.1's dialect) reports them.
    func schemaFailures(_ observations: [Observation]) throws -> [String] {
        var writer = JSONWriter()
        writer.beginArray()
        for observation in observations {
            writer.beginObject()
            writer.member("path", observation.route.path)
            writer.member("method", observation.route.method.lowercased())
            writer.member("status", String(observation.status))
            writer.member("contentType", observation.contentType)
            writer.member("body", observation.body)
            writer.endObject()
        }
        writer.endArray()
        let input = FileManager.default.temporaryDirectory.appendingPathComponent("openapi-\(UUID()).json").path
        try writer.string.write(toFile: input, atomically: false, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: input) }
        let result = try Python.run(
            """
            import json, sys, yaml
            from jsonschema import Draft202012Validator
            spec = yaml.safe_load(open(sys.argv[1]))
            def resolve(node):
                while isinstance(node, dict) and '$ref' in node:
                    target = spec
                    for part in node['$ref'][2:].split('/'):
                        target = target[part]
                    node = target
                return node
            failures = []
            for o in json.load(open(sys.argv[2])):
                response = resolve(resolve(spec['paths'][o['path']][o['method']]['responses']).get(o['status'], {}))
                media = (o['contentType'] or '').split(';')[0].strip()
                content = response.get('content', {}).get(media)
                if not content or 'schema' not in content:
                    continue
                schema = dict(content['schema'], components=spec['components'])
                # NDJSON: the schema is each line's.
                if media == 'application/x-ndjson':
                    instances = [json.loads(line) for line in o['body'].split('\\n') if line.strip()]
                else:
                    instances = [json.loads(o['body']) if media.endswith('json') else o['body']]
                checker = Draft202012Validator(schema, format_checker=Draft202012Validator.FORMAT_CHECKER)
                for instance in instances:
                    for error in checker.iter_errors(instance):
                        where = '/'.join(str(p) for p in error.absolute_path)
                        failures.append(f"{o['method'].upper()} {o['path']} {o['status']}: {error.message} at /{where}")
            json.dump(failures, sys.stdout)
            """, arguments: [path, input])
        guard result.status == 0, case .array(let failures) = try JSONParser.parse(result.stdout) else {
            return ["schema check failed to run: \(result.stderr)"]
        }
        return failures.map { if case .string(let text) = $0 { text } else { "\($0)" } }
    }
}
