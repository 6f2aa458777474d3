import RemindConfig
import RemindCore
import Testing

struct ConfigurationLoaderTests {
    static let fileContents = #"{"stateDirectory":"/file/state","listen":{"socket":"/file/remindd.sock"}}"#
    static let environment = ["REMINDD_STATE_DIRECTORY": "/env/state", "REMINDD_SOCKET": "/env/remindd.sock"]

    /// Defaults whose default configuration file does not exist.
    static func defaults(_ directory: TemporaryDirectory) -> ConfigurationLoader.Defaults {
        ConfigurationLoader.Defaults(
            stateDirectory: "/default/state", socket: "/default/remindd.sock",
            configurationPath: directory.path + "/absent.json")
    }

    /// Flags beat the environment, which beats the file, which beats the defaults.
    @Test func flagBeatsEnvironmentBeatsFileBeatsDefault() throws {
        let directory = try TemporaryDirectory()
        let file = try directory.write("remindd.json", Self.fileContents)
        let defaults = Self.defaults(directory)
        func load(
            _ path: String?, _ environment: [String: String], _ state: String?, _ socket: String?
        ) throws
            -> (String, String)
        {
            let configuration = try ConfigurationLoader.load(
                path: path, environment: environment, stateDirectoryFlag: state, socketFlag: socket, defaults: defaults)
            return (configuration.stateDirectory, configuration.listen.socket)
        }
        #expect(try load(nil, [:], nil, nil) == ("/default/state", "/default/remindd.sock"))
        #expect(try load(file, [:], nil, nil) == ("/file/state", "/file/remindd.sock"))
        #expect(try load(file, Self.environment, nil, nil) == ("/env/state", "/env/remindd.sock"))
        #expect(
            try load(file, Self.environment, "/flag/state", "/flag/remindd.sock") == (
                "/flag/state", "/flag/remindd.sock"
            ))
        // Each source can set one key and leave the other to the next source down.
        #expect(
            try load(file, ["REMINDD_SOCKET": "/env/remindd.sock"], "/flag/state", nil) == (
                "/flag/state", "/env/remindd.sock"
            ))
    }

    /// REMINDD_CONFIG names the file when no --config is given; --config wins over it.
    @Test func configVariableNamesTheFileWithoutAPathFlag() throws {
        let directory = try TemporaryDirectory()
        let fromVariable = try directory.write("env.json", #"{"stateDirectory":"/from/variable"}"#)
        let fromFlag = try directory.write("flag.json", #"{"stateDirectory":"/from/flag"}"#)
        let environment = ["REMINDD_CONFIG": fromVariable]
        let viaVariable = try ConfigurationLoader.load(
            path: nil, environment: environment, stateDirectoryFlag: nil, socketFlag: nil,
            defaults: Self.defaults(directory))
        #expect(viaVariable.stateDirectory == "/from/variable")
        let viaFlag = try ConfigurationLoader.load(
            path: fromFlag, environment: environment, stateDirectoryFlag: nil, socketFlag: nil,
            defaults: Self.defaults(directory))
        #expect(viaFlag.stateDirectory == "/from/flag")
    }

    /// The default file is read when it exists, without being named.
    @Test func defaultFileIsReadWhenPresent() throws {
        let directory = try TemporaryDirectory()
        let file = try directory.write("remindd.json", #"{"history":{"maxEntries":7}}"#)
        let defaults = ConfigurationLoader.Defaults(stateDirectory: "/s", socket: "/s.sock", configurationPath: file)
        let configuration = try ConfigurationLoader.load(
            path: nil, environment: [:], stateDirectoryFlag: nil, socketFlag: nil, defaults: defaults)
        #expect(configuration.history.maxEntries == 7)
        #expect(configuration.stateDirectory == "/s")
    }

    /// A file named by --config or REMINDD_CONFIG must exist; only the default one may be missing.
    @Test func missingFileIsAnErrorOnlyWhenNamed() throws {
        let directory = try TemporaryDirectory()
        let missing = directory.path + "/missing.json"
        let expected = ConfigurationError(
            kind: .unreadable, path: missing,
            validationError: ValidationError(field: "", reason: "cannot be read: No such file or directory"))
        #expect(throws: expected) {
            try ConfigurationLoader.load(
                path: missing, environment: [:], stateDirectoryFlag: nil, socketFlag: nil,
                defaults: Self.defaults(directory))
        }
        #expect(throws: expected) {
            try ConfigurationLoader.load(
                path: nil, environment: ["REMINDD_CONFIG": missing], stateDirectoryFlag: nil, socketFlag: nil,
                defaults: Self.defaults(directory))
        }
        #expect(expected.description == "remindd: \(missing): cannot be read: No such file or directory")
    }

    /// An invalid file is one line naming the file, the key path and the reason.
    @Test func invalidFileMessageNamesFileKeyPathAndReason() throws {
        let directory = try TemporaryDirectory()
        let file = try directory.write("remindd.json", #"{"schedule":{"jitterSeconds":-5}}"#)
        do {
            _ = try ConfigurationLoader.load(
                path: file, environment: [:], stateDirectoryFlag: nil, socketFlag: nil, defaults: .system)
            Issue.record("accepted an invalid file")
        } catch {
            #expect(error.kind == .invalid)
            #expect(error.field == "schedule.jitterSeconds")
            #expect(error.description == "remindd: \(file): schedule.jitterSeconds: must be at least 0")
        }
    }

    /// A directory where the file should be is unreadable, with the system's reason.
    @Test func directoryInsteadOfFileIsUnreadable() throws {
        let directory = try TemporaryDirectory()
        #expect(throws: ConfigurationError.self) {
            try ConfigurationLoader.load(
                path: directory.path, environment: [:], stateDirectoryFlag: nil, socketFlag: nil, defaults: .system)
        }
        do {
            _ = try ConfigurationLoader.load(
                path: directory.path, environment: [:], stateDirectoryFlag: nil, socketFlag: nil, defaults: .system)
        } catch {
            #expect(error.kind == .unreadable)
            #expect(error.reason == "cannot be read: Is a directory")
        }
    }

    /// An empty environment variable counts as unset; an empty flag is an error naming the flag.
    @Test func emptyVariableIsUnsetButEmptyFlagIsAnError() throws {
        let directory = try TemporaryDirectory()
        let configuration = try ConfigurationLoader.load(
            path: nil, environment: ["REMINDD_SOCKET": "", "REMINDD_STATE_DIRECTORY": "", "REMINDD_CONFIG": ""],
            stateDirectoryFlag: nil, socketFlag: nil, defaults: Self.defaults(directory))
        #expect(configuration.listen.socket == "/default/remindd.sock")
        #expect(configuration.stateDirectory == "/default/state")
        #expect(
            throws: ConfigurationError(
                kind: .invalid, path: nil,
                validationError: ValidationError(field: "--socket", reason: "must not be empty"))
        ) {
            try ConfigurationLoader.load(
                path: nil, environment: [:], stateDirectoryFlag: nil, socketFlag: "", defaults: Self.defaults(directory)
            )
        }
    }

    /// A socket path too long for `sun_path` is refused, naming the variable that set it.
    @Test func overlongSocketFromEnvironmentNamesTheVariable() throws {
        let directory = try TemporaryDirectory()
        let long = "/run/" + String(repeating: "x", count: 110)
        do {
            _ = try ConfigurationLoader.load(
                path: nil, environment: ["REMINDD_SOCKET": long], stateDirectoryFlag: nil, socketFlag: nil,
                defaults: Self.defaults(directory))
            Issue.record("accepted an overlong socket path")
        } catch {
            #expect(error.field == "REMINDD_SOCKET")
            #expect(error.path == nil)
        }
    }
}
