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
}
