import FoundationEssentials
import Synchronization

/// Finds the folders the daemon reads at run time (`pipelines/`, `web/`), so the files in
/// the repository stay the one copy of each. Looked for, in order: the environment variable
/// the caller names (`MARQUEE_PIPELINES`, `MARQUEE_WEB`), `<prefix>/share/marquee/<name>`
/// next to an installed binary (`<prefix>/bin/marquee`), and a `<name>/` folder in the
/// executable's folder or one of its parents (a build in the source tree: `.build/debug/marquee`).
public enum InstalledFolders {
    /// The first candidate folder that holds `probe` (a file every good copy has).
    public static func find(_ name: String, environment variable: String, probe: String) -> URL? {
        candidates(name, environment: variable).first {
            FileManager.default.fileExists(atPath: $0.appendingPathComponent(probe).path)
        }
    }

    static func candidates(_ name: String, environment variable: String) -> [URL] {
        var folders: [URL] = []
        if let configured = ProcessInfo.processInfo.environment[variable], !configured.isEmpty {
            folders.append(URL(fileURLWithPath: configured))
        }
        // /proc/self/exe names the binary even when it was started through $PATH.
        let executableFolder = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        folders.append(executableFolder.deletingLastPathComponent().appendingPathComponent("share/marquee/\(name)"))
        var folder = executableFolder
        for _ in 0..<6 {
            folders.append(folder.appendingPathComponent(name))
            folder.deleteLastPathComponent()
        }
        return folders
    }
}

/// The pipeline templates of `pipelines/` (`$MARQUEE_PIPELINES` overrides where they are).
/// Read once and kept: a daemon whose binary is replaced while it runs (a package upgrade)
/// can no longer find the folder through /proc/self/exe, so `load` reads them all at start.
public enum TemplateLibrary {
    private static let loaded = Mutex<[String: String]>([:])

    /// Reads every template the daemon uses; call once before serving.
    public static func load() throws {
        for name in names { _ = try text(named: name) }
    }

    /// The templates the daemon reads (`pipelines/<name>.pipeline`).
    public static let names = ["output", "composition"]

    /// Forgets what was read (tests).
    static func forget() { loaded.withLock { $0.removeAll() } }

    public static func text(named name: String) throws -> String {
        if let text = loaded.withLock({ $0[name] }) { return text }
        let file = name + ".pipeline"
        guard let folder = InstalledFolders.find("pipelines", environment: "MARQUEE_PIPELINES", probe: file),
              let text = try? String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8) else {
            throw TemplateError(file: file, searched: InstalledFolders.candidates("pipelines", environment: "MARQUEE_PIPELINES").map(\.path))
        }
        loaded.withLock { $0[name] = text }
        return text
    }

    public struct TemplateError: Error, CustomStringConvertible {
        public var file: String
        public var searched: [String]
        public var description: String {
            "pipeline template \(file) not found (looked in \(searched.joined(separator: ", ")); set MARQUEE_PIPELINES to the pipelines folder)"
        }
    }
}
