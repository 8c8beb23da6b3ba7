import FoundationEssentials

/// The dashboard's files: `web/` at `/`, and Debian's KaTeX (`libjs-katex`) at
/// `/vendor/katex/`. Read-only, GET and HEAD only, no listing; a path that leaves its folder
/// (`..`, a symlink pointing out) is not found. Files are small and read whole.
public struct StaticFiles: Sendable {
    /// A URL prefix served from a folder. `alsoAllowed` are folders its symlinks may lead
    /// into (KaTeX's `fonts` links to the fonts-katex package).
    struct Mount: Sendable {
        var prefix: String
        var folder: URL
        var alsoAllowed: [URL]
        var cacheControl: String
    }

    private let mounts: [Mount]
    public var isEmpty: Bool { mounts.isEmpty }

    /// `web`: the dashboard folder (nil: none found; `/` answers 404 saying so).
    public init(web: URL?, katex: URL? = URL(fileURLWithPath: "/usr/share/javascript/katex")) {
        var mounts: [Mount] = []
        if let katex, FileManager.default.fileExists(atPath: katex.appendingPathComponent("katex.min.js").path) {
            let real = katex.resolvingSymlinksInPath()
            mounts.append(Mount(prefix: "/vendor/katex/", folder: real,
                                alsoAllowed: [real.appendingPathComponent("fonts").resolvingSymlinksInPath()],
                                cacheControl: "public, max-age=86400"))
        }
        if let web {
            // Revalidate every time: a daemon upgrade must not leave old scripts in a browser.
            mounts.append(Mount(prefix: "/", folder: web.resolvingSymlinksInPath(), alsoAllowed: [], cacheControl: "no-cache"))
        }
        self.mounts = mounts
    }

    /// Paths that may be static files: everything outside the API, metrics and docs.
    public static func mayServe(_ path: String) -> Bool {
        !(path == "/v1" || path.hasPrefix("/v1/") || path == "/metrics" || path == "/healthz" || path == "/openapi.json")
    }

    public struct File: Sendable {
        public var body: Data
        public var contentType: String
        public var headers: [String: String]
    }

    public enum Failure: Error, Equatable { case notFound, noDashboard }

    /// `removingPercentEncoding`, which FoundationEssentials lacks: nil when a "%" is not
    /// followed by two hex digits or the decoded bytes are not UTF-8.
    static func percentDecoded(_ text: String) -> String? {
        var bytes: [UInt8] = []
        var input = text.utf8.makeIterator()
        while let byte = input.next() {
            guard byte == UInt8(ascii: "%") else { bytes.append(byte); continue }
            guard let high = input.next().flatMap(hexValue), let low = input.next().flatMap(hexValue) else { return nil }
            bytes.append(high << 4 | low)
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexValue(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    public func file(at rawPath: String) -> Result<File, Failure> {
        guard let path = Self.percentDecoded(rawPath), !path.contains("\0"), !path.contains("\\") else { return .failure(.notFound) }
        // Dot segments are refused outright rather than resolved: no legitimate page links so.
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        guard !segments.contains(where: { $0 == ".." || $0 == "." }) else { return .failure(.notFound) }
        guard let mount = mounts.first(where: { path.hasPrefix($0.prefix) }) else {
            return .failure(mounts.contains { $0.prefix == "/" } ? .notFound : .noDashboard)
        }
        var relative = String(path.dropFirst(mount.prefix.count))
        if relative.isEmpty || relative.hasSuffix("/") { relative += "index.html" }
        let candidate = mount.folder.appendingPathComponent(relative).resolvingSymlinksInPath()
        guard ([mount.folder] + mount.alsoAllowed).contains(where: { candidate.path.hasPrefix($0.path + "/") }) else { return .failure(.notFound) }
        var isDirectory = false  // FoundationEssentials' fileExists takes a plain Bool, not ObjCBool
        guard FileManager.default.fileExists(atPath: candidate.path, isDirectory: &isDirectory), !isDirectory,
              let body = FileManager.default.contents(atPath: candidate.path) else { return .failure(.notFound) }
        let type = Self.contentType(of: candidate.pathExtension)
        var headers = ["Cache-Control": mount.cacheControl, "X-Content-Type-Options": "nosniff"]
        if type.hasPrefix("text/html") {
            headers["Content-Security-Policy"] = Self.pagePolicy
            headers["X-Frame-Options"] = "DENY"
            headers["Referrer-Policy"] = "no-referrer"
        }
        return .success(File(body: body, contentType: type, headers: headers))
    }

    /// The page may talk to its own origin only; KaTeX sets inline styles, nothing runs inline.
    static let pagePolicy = "default-src 'self'; img-src 'self' blob: data:; style-src 'self' 'unsafe-inline'; "
        + "connect-src 'self'; font-src 'self' data:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'"

    static func contentType(of pathExtension: String) -> String {
        switch pathExtension.lowercased() {
        case "html", "htm": return "text/html; charset=utf-8"
        case "js", "mjs": return "text/javascript; charset=utf-8"
        case "css": return "text/css; charset=utf-8"
        case "json", "map": return "application/json"
        case "svg": return "image/svg+xml"
        case "png": return "image/png"
        case "jpg", "jpeg": return "image/jpeg"
        case "ico": return "image/x-icon"
        case "woff2": return "font/woff2"
        case "woff": return "font/woff"
        case "ttf": return "font/ttf"
        case "txt": return "text/plain; charset=utf-8"
        default: return "application/octet-stream"
        }
    }
}
