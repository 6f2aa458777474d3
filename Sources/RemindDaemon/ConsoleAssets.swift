import Crypto
import NIOCore

/// The console's files, embedded in the binary from `Sources/RemindDaemon/Console/` by SwiftPM
/// (`PackageResources`), by the name they are served under (`/ui/<name>`; `index.html` also at
/// `/ui/`). A file added to that directory is served once it is listed here
/// (`ConsoleAssetsTests` fails until it is).
struct ConsoleAssets: Sendable {
    struct Asset: Sendable {
        var body: ByteBuffer
        var contentType: String
        /// A strong validator of the bytes, so a browser revalidates with `If-None-Match` and
        /// gets a 304 until the binary changes.
        var etag: String
    }

    private let assets: [String: Asset]

    init(files: [String: [UInt8]]) {
        var assets: [String: Asset] = [:]
        for (name, bytes) in files {
            let digest = SHA256.hash(data: bytes).prefix(12).map { String($0, radix: 16).leftPadded(to: 2) }.joined()
            assets[name] = Asset(
                body: ByteBuffer(bytes: bytes), contentType: Self.contentType(of: name), etag: "\"\(digest)\"")
        }
        self.assets = assets
    }

    subscript(name: String) -> Asset? { assets[name] }

    var names: [String] { assets.keys.sorted() }

    static func contentType(of name: String) -> String {
        switch name.split(separator: ".").last {
        case "html": "text/html; charset=utf-8"
        case "css": "text/css; charset=utf-8"
        case "js": "text/javascript; charset=utf-8"
        case "svg": "image/svg+xml"
        case "png": "image/png"
        default: "application/octet-stream"
        }
    }

    /// The files this binary carries.
    static let embedded = ConsoleAssets(files: [
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
    ])
}

extension String {
    fileprivate func leftPadded(to length: Int) -> String {
        count >= length ? self : String(repeating: "0", count: length - count) + self
    }
}
