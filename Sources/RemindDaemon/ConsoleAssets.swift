import Foundation
import Hummingbird
import NIOCore

/// The console's files, embedded in the binary from `Sources/RemindDaemon/Console/` by SwiftPM
/// (`PackageResources`), served by Hummingbird's `FileMiddleware` under `/ui/` as a file
/// provider (`index.html` also at `/ui/`). A file added to that directory is served once it is
/// listed here (`consoleServesEveryFileOfItsDirectory` fails until it is).
///
/// The provider has one folder, `/`, holding every file. A file's modification date is the
/// binary's, so the middleware's `ETag` and `Last-Modified` change when the binary does and a
/// browser revalidating never mixes a new console with a cached one.
struct ConsoleAssets: FileProvider {
    struct Attributes: FileMiddlewareFileAttributes, Sendable {
        var isFolder: Bool
        var size: Int
        var modificationDate: Date
    }

    /// A file by its name; the empty name is the folder.
    typealias FileIdentifier = String

    private let files: [String: ByteBuffer]
    private let modificationDate: Date

    init(files: [String: [UInt8]], modificationDate: Date) {
        self.files = files.mapValues { ByteBuffer(bytes: $0) }
        self.modificationDate = modificationDate
    }

    subscript(name: String) -> ByteBuffer? { files[name] }

    var names: [String] { files.keys.sorted() }

    func getFileIdentifier(_ path: String) -> String? {
        let name = path.hasPrefix("/") ? String(path.dropFirst()) : path
        return name.isEmpty || files[name] != nil ? name : nil
    }

    func getAttributes(id: String) async throws -> Attributes? {
        if id.isEmpty { return Attributes(isFolder: true, size: 0, modificationDate: modificationDate) }
        return files[id].map { Attributes(isFolder: false, size: $0.readableBytes, modificationDate: modificationDate) }
    }

    func loadFile(id: String, context: some RequestContext) async throws -> ResponseBody {
        guard let body = files[id] else { throw HTTPError(.notFound) }
        return ResponseBody(byteBuffer: body)
    }

    func loadFile(id: String, range: ClosedRange<Int>, context: some RequestContext) async throws -> ResponseBody {
        guard let body = files[id] else { throw HTTPError(.notFound) }
        let upper = min(range.upperBound, body.readableBytes - 1)
        guard range.lowerBound <= upper,
            let slice = body.getSlice(at: range.lowerBound, length: upper - range.lowerBound + 1)
        else { throw HTTPError(.rangeNotSatisfiable) }
        return ResponseBody(byteBuffer: slice)
    }

    /// The media types of the console's files, with the charset the browser must not guess.
    static let mediaTypes: [String: MediaType] = [
        "html": MediaType(type: .text, subType: "html", parameter: ("charset", "utf-8")),
        "css": MediaType(type: .text, subType: "css", parameter: ("charset", "utf-8")),
        "js": MediaType(type: .text, subType: "javascript", parameter: ("charset", "utf-8")),
        "svg": MediaType(type: .image, subType: "svg+xml"),
    ]

    /// The files this binary carries.
    static let embedded = ConsoleAssets(
        files: [
            "index.html": PackageResources.index_html,
            "console.css": PackageResources.console_css,
            "icon.svg": PackageResources.icon_svg,
            "app.js": PackageResources.app_js,
            "api.js": PackageResources.api_js,
            "dom.js": PackageResources.dom_js,
            "chart.js": PackageResources.chart_js,
            "login.js": PackageResources.login_js,
            "overview.js": PackageResources.overview_js,
            "outcomes.js": PackageResources.outcomes_js,
            "reminders.js": PackageResources.reminders_js,
            "dead-letters.js": PackageResources.dead_letters_js,
            "user.js": PackageResources.user_js,
            "user-view.js": PackageResources.user_view_js,
            "forget.js": PackageResources.forget_js,
            "config.js": PackageResources.config_js,
        ], modificationDate: binaryModificationDate())

    /// When the running binary was written; the start of the process when that cannot be read.
    private static func binaryModificationDate() -> Date {
        let attributes = try? FileManager.default.attributesOfItem(atPath: "/proc/self/exe")
        return attributes?[.modificationDate] as? Date ?? Date()
    }
}
