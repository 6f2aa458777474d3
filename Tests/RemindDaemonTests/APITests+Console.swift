import Foundation
import HTTPTypes
import HummingbirdTesting
import RemindConfig
import RemindCore
import Testing

@testable import RemindDaemon

extension APITests {
    /// Every file of `Sources/RemindDaemon/Console/` is served, and nothing else: a file added
    /// there and not listed in `ConsoleAssets.embedded` would be a page that loads nothing.
    @Test func consoleServesEveryFileOfItsDirectory() throws {
        let directory =
            URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().path + "/Sources/RemindDaemon/Console"
        let files = try FileManager.default.contentsOfDirectory(atPath: directory).filter { !$0.hasPrefix(".") }
        #expect(ConsoleAssets.embedded.names == files.sorted())
        for name in files {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: directory + "/" + name))
            #expect(ConsoleAssets.embedded[name].map { Data($0.readableBytesView) } == bytes, "\(name)")
        }
    }

    /// `/ui/` is the page with the console's security headers and an ETag; the same ETag in
    /// `If-None-Match` is a 304; `/ui` redirects; an unknown file is a 404 problem; a POST a 405.
    @Test func consoleAnswersCarryItsHeaders() async throws {
        try await withAPI { _, client in
            let page = try await client.get("/ui/")
            #expect(page.status == .ok)
            #expect(page.headers[.contentType] == "text/html; charset=utf-8")
            #expect(page.headers[.contentSecurityPolicy] == "default-src 'self'; frame-ancestors 'none'")
            #expect(page.headers[.xContentTypeOptions] == "nosniff")
            #expect(page.headers[HTTPField.Name("Referrer-Policy")!] == "no-referrer")
            #expect(String(buffer: page.body).contains("<html"))
            let etag = try #require(page.headers[.eTag])
            let again = try await client.execute(uri: "/ui/", method: .get, headers: [.ifNoneMatch: etag])
            #expect(again.status == .notModified)
            #expect(again.body.readableBytes == 0)
            let script = try await client.get("/ui/app.js")
            #expect(script.headers[.contentType] == "text/javascript; charset=utf-8")
            #expect(script.headers[.eTag] != nil && script.headers[.eTag] != etag)
            let bare = try await client.get("/ui")
            #expect(bare.status == .permanentRedirect)
            #expect(bare.headers[.location] == "/ui/")
            let missing = try await client.get("/ui/nothing.js")
            #expect(missing.status == .notFound)
            #expect(missing.headers[.contentType] == "application/problem+json")
            #expect(missing.headers[.contentSecurityPolicy] != nil)
            #expect(try await client.get("/ui/../v1/status").status != .ok)
            #expect(try await client.post("/ui/").status == .methodNotAllowed)
        }
    }

    /// With `console.enabled` false there is no `/ui/`.
    @Test func consoleCanBeTurnedOff() async throws {
        try await withAPI(configure: { configuration, _ in configuration.console.enabled = false }) { _, client in
            let page = try await client.get("/ui/")
            #expect(page.status == .notFound)
        }
    }
}
