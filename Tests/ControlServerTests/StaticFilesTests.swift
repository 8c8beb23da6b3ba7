@testable import ControlServer
import Foundation
import XCTest

final class StaticFilesTests: XCTestCase {
    private var root: URL!

    override func setUpWithError() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("static-\(UUID().uuidString)")
        let web = root.appendingPathComponent("web")
        try FileManager.default.createDirectory(at: web.appendingPathComponent("js"), withIntermediateDirectories: true)
        try Data("<!doctype html>".utf8).write(to: web.appendingPathComponent("index.html"))
        try Data("export {}".utf8).write(to: web.appendingPathComponent("js/main.js"))
        try Data("secret".utf8).write(to: root.appendingPathComponent("outside.txt"))
        // A symlink inside web/ that leads out of it must not be followed.
        try FileManager.default.createSymbolicLink(at: web.appendingPathComponent("escape.txt"),
                                                   withDestinationURL: root.appendingPathComponent("outside.txt"))
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: root)
    }

    private var files: StaticFiles { StaticFiles(web: root.appendingPathComponent("web"), katex: nil) }

    func testServesThePageAndModulesWithTheirTypes() throws {
        let page = try files.file(at: "/").get()
        XCTAssertEqual(page.contentType, "text/html; charset=utf-8")
        XCTAssertNotNil(page.headers["Content-Security-Policy"])
        XCTAssertEqual(String(decoding: page.body, as: UTF8.self), "<!doctype html>")
        let module = try files.file(at: "/js/main.js").get()
        XCTAssertEqual(module.contentType, "text/javascript; charset=utf-8", "ES modules load only with a JavaScript type")
        XCTAssertNil(module.headers["Content-Security-Policy"])
        XCTAssertEqual(module.headers["X-Content-Type-Options"], "nosniff")
    }

    func testNothingOutsideTheFolder() {
        for path in ["/../outside.txt", "/%2e%2e/outside.txt", "/js/../../outside.txt", "/escape.txt", "/js", "/nope.html",
                     "/js/%00main.js", "/js\\main.js", "/./index.html"] {
            XCTAssertEqual(files.file(at: path).failure, .notFound, path)
        }
    }

    func testWithoutADashboardFolderSaysSo() {
        XCTAssertEqual(StaticFiles(web: nil, katex: nil).file(at: "/").failure, .noDashboard)
    }

    func testAPIPathsAreNeverStatic() {
        for path in ["/v1", "/v1/player", "/metrics", "/healthz", "/openapi.json"] { XCTAssertFalse(StaticFiles.mayServe(path), path) }
        for path in ["/", "/index.html", "/vendor/katex/katex.min.js", "/v1x"] { XCTAssertTrue(StaticFiles.mayServe(path), path) }
    }
}

private extension Result {
    var failure: Failure? { if case .failure(let f) = self { return f }; return nil }
}
