import Foundation

/// Finds the pipeline templates of `pipelines/` at run time, so the files in the repository
/// stay the one description of each pipeline. Looked for, in order: `$MARQUEE_PIPELINES`,
/// `<prefix>/share/marquee/pipelines` next to an installed binary (`<prefix>/bin/marquee`),
/// and a `pipelines/` folder in the executable's folder or one of its parents (a build in
/// the source tree: `.build/debug/marquee`).
public enum TemplateLibrary {
    public static func text(named name: String) throws -> String {
        let file = name + ".pipeline"
        for folder in searchFolders() {
            let url = folder.appendingPathComponent(file)
            if let text = try? String(contentsOf: url, encoding: .utf8) { return text }
        }
        throw TemplateError(file: file, searched: searchFolders().map(\.path))
    }

    public struct TemplateError: Error, CustomStringConvertible {
        public var file: String
        public var searched: [String]
        public var description: String {
            "pipeline template \(file) not found (looked in \(searched.joined(separator: ", ")); set MARQUEE_PIPELINES to the pipelines folder)"
        }
    }

    static func searchFolders() -> [URL] {
        var folders: [URL] = []
        if let configured = ProcessInfo.processInfo.environment["MARQUEE_PIPELINES"], !configured.isEmpty {
            folders.append(URL(fileURLWithPath: configured))
        }
        // /proc/self/exe names the binary even when it was started through $PATH.
        let executableFolder = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        folders.append(executableFolder.deletingLastPathComponent().appendingPathComponent("share/marquee/pipelines"))
        var folder = executableFolder
        for _ in 0..<6 {
            folders.append(folder.appendingPathComponent("pipelines"))
            folder.deleteLastPathComponent()
        }
        return folders
    }
}
