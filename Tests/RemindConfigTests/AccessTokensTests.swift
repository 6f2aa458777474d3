import Foundation
import RemindConfig
import RemindCore
import Testing

struct AccessTokensTests {
    private static let admin = "adm1n-token-0123456789"
    private static let reader = "r3ad-token-abcdefghij"

    private func parsed(_ text: String) throws(ValidationError) -> AccessTokens {
        var tokens = AccessTokens()
        try tokens.add(parsing: text, file: "/etc/remindd/tokens", field: "listen.tokensFile")
        return tokens
    }

    private func tokensRefusal(_ text: String) -> ValidationError? {
        do {
            _ = try parsed(text)
            return nil
        } catch {
            return error
        }
    }

    /// Names, scopes and tokens are read from their fields; comments, blank lines and tabs are
    /// allowed, and a `#` inside a token is part of it.
    @Test func readsEntriesSkippingCommentsAndBlankLines() throws {
        let tokens = try parsed(
            """
            # who holds what
            ops admin \(Self.admin)

            viewer\tread\t\(Self.reader)   # the dashboard
            backend.eu-1 report rep#rt-token-0123456789
            """)
        #expect(tokens.entries.map(\.name) == ["ops", "viewer", "backend.eu-1"])
        #expect(tokens.entries.map(\.scope) == [.admin, .read, .report])
        #expect(tokens.entries[0].token == Array(Self.admin.utf8))
        #expect(tokens.entries[1].token == Array(Self.reader.utf8))
        #expect(tokens.entries[2].token == Array("rep#rt-token-0123456789".utf8))
    }

    /// Every bad line is refused naming the key, the file and the line, and never the token.
    @Test func badLinesAreRefusedWithTheirLineNumber() {
        let cases: [(String, String)] = [
            ("ops admin", "line 1: expected <name> <scope> <token>, found 2 field(s)"),
            ("ops admin \(Self.admin) extra", "line 1: expected <name> <scope> <token>, found 4 field(s)"),
            ("# c\nops write \(Self.admin)", "line 2: scope of ops must be read, report or admin"),
            ("op$ admin \(Self.admin)", "line 1: name must be 1 to 64 of A-Z a-z 0-9 _ . -"),
            (
                String(repeating: "n", count: 65) + " admin \(Self.admin)",
                "line 1: name must be 1 to 64 of A-Z a-z 0-9 _ . -"
            ),
            ("ops admin short-token", "line 1: token of ops must be at least 16 characters"),
            ("ops admin \(Self.admin)\nops read \(Self.reader)", "line 2: the name ops is used twice"),
            (
                "ops admin \(Self.admin)\nviewer read \(Self.admin)",
                "line 2: the token of viewer is also another name's; every holder needs a token of its own"
            ),
        ]
        for (text, reason) in cases {
            let error = tokensRefusal(text)
            #expect(
                error == ValidationError(field: "listen.tokensFile", reason: "/etc/remindd/tokens \(reason)"), "\(text)"
            )
            #expect(
                error.map { !$0.description.contains(Self.admin) && !$0.description.contains("short-token") } ?? false)
        }
    }

    /// `listen.tokenFile` is the admin token named `default`, read beside the tokens file;
    /// `default` in the tokens file as well is a name used twice.
    @Test func tokenFileIsTheDefaultAdmin() throws {
        let directory = try TemporaryDirectory()
        let single = try directory.write("token", "  single-token-9f2c41 \n")
        let many = try directory.write("tokens", "viewer read \(Self.reader)\n")
        let tokens = try AccessTokens.load(ListenConfiguration(tokenFile: single, tokensFile: many))
        #expect(tokens.entries.map(\.name) == ["default", "viewer"])
        #expect(tokens.entries[0].scope == .admin)
        #expect(tokens.entries[0].token == Array("single-token-9f2c41".utf8))
        #expect(!tokens.description.contains("single-token"))
        let clash = try directory.write("clash", "default read \(Self.reader)\n")
        #expect(
            throws: ValidationError(
                field: "listen.tokensFile", reason: "\(clash) line 1: the name default is used twice")
        ) {
            try AccessTokens.load(ListenConfiguration(tokenFile: single, tokensFile: clash))
        }
        #expect(throws: ValidationError(field: "listen.tokensFile", reason: "cannot read \(directory.path)/missing")) {
            try AccessTokens.load(ListenConfiguration(tokensFile: directory.path + "/missing"))
        }
    }

    /// A TCP listener needs one of the two files; `console.enabled` must be a boolean.
    @Test func listenAndConsoleKeysAreValidated() throws {
        #expect(
            try parse(#"{"listen":{"tcp":"127.0.0.1:8650","tokensFile":"/etc/remindd/tokens"}}"#).listen.tokensFile
                == "/etc/remindd/tokens")
        #expect(try parse(#"{"console":{"enabled":false}}"#).console.enabled == false)
        #expect(try parse("{}").console.enabled)
        #expect(refusal(#"{"console":{"enabled":"no"}}"#)?.field == "console.enabled")
        #expect(refusal(#"{"console":{"path":"/x"}}"#)?.field == "console.path")
    }
}
