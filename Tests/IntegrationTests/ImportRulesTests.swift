import Foundation
import XCTest

/// The daemon links FoundationEssentials only (docs/ARCHITECTURE.md, "Modules"): one
/// `import Foundation` in a module of the `marquee` product loads libFoundation,
/// FoundationInternationalization and ICU again, 6 MiB of resident memory at idle.
final class ImportRulesTests: XCTestCase {
    func testNoDaemonModuleImportsFoundation() throws {
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources")
        let files = try XCTUnwrap(FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil))
            .compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" }
        XCTAssertGreaterThan(files.count, 50)
        // marquee-conformance is a tool of its own, not linked into the daemon.
        let offenders = try files.filter { !$0.path.contains("/Sources/Conformance/") }.filter { file in
            try String(contentsOf: file, encoding: .utf8).split(separator: "\n")
                .contains { $0.trimmingCharacters(in: .whitespaces) == "import Foundation" }
        }
        XCTAssertEqual(offenders.map(\.lastPathComponent), [], "use FoundationEssentials (and TextSupport)")
    }

    /// The core knows nothing of what features store or send (docs/ARCHITECTURE.md,
    /// "Features"): analytics and resume points subscribe to the player from ContentSessions.
    func testPlayerCoreImportsNeitherStorageNorItsFeatures() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let core = root.appendingPathComponent("Sources/PlayerCore")
        let files = try FileManager.default.contentsOfDirectory(at: core, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "swift" }
        XCTAssertGreaterThan(files.count, 10)
        let forbidden: Set<String> = ["import Storage", "import ContentSessions", "import CSQLite",
                                      "@testable import Storage", "@_exported import Storage"]
        let offenders = try files.filter { file in
            try String(contentsOf: file, encoding: .utf8).split(separator: "\n")
                .contains { forbidden.contains($0.trimmingCharacters(in: .whitespaces)) }
        }
        XCTAssertEqual(offenders.map(\.lastPathComponent), [], "PlayerCore must not depend on Storage")
        // Nor may the package let it: the target's dependency list names neither.
        let manifest = try String(contentsOf: root.appendingPathComponent("Package.swift"), encoding: .utf8)
        let line = try XCTUnwrap(manifest.split(separator: "\n").first { $0.contains(#".target(name: "PlayerCore""#) })
        XCTAssertFalse(line.contains(#""Storage""#), String(line))
        XCTAssertFalse(line.contains(#""ContentSessions""#), String(line))
    }
}
