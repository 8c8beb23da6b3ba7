import Foundation
import OfflineLibrary
import XCTest

/// `LibraryServer` over real loopback HTTP, with curl (and a raw socket where a client must
/// leave mid-body) as the client. Plain XCTest: the server runs on its own thread and GLib
/// context and needs no loop of the caller's.
final class LibraryServerTests: XCTestCase {
    /// One server for the class: each one keeps its thread and port for the process's life.
    private static let server = try! LibraryServer()
    private static let folder = serverTestFolder("marquee-library-server-test")
    /// 16 MiB of random bytes.
    private static let filePath = folder.appendingPathComponent("media.bin").path
    private static let fileSize: Int64 = 16 << 20
    private nonisolated(unsafe) static var fileBytes = Data()  // set in class setUp, read by the tests after it

    private var server: LibraryServer { Self.server }
    private var output: String!

    override class func setUp() {
        super.setUp()
        try! writeRandomFile(filePath, megabytes: Int(fileSize >> 20))
        fileBytes = try! Data(contentsOf: URL(fileURLWithPath: filePath))
    }

    override class func tearDown() {
        try? FileManager.default.removeItem(at: folder)
        fileBytes = Data()
        super.tearDown()
    }

    override func setUp() {
        super.setUp()
        output = Self.folder.appendingPathComponent("out-\(UUID().uuidString)").path
    }

    override func tearDown() {
        try? FileManager.default.removeItem(atPath: output)
        super.tearDown()
    }

    private func publishFile() throws -> (token: String, url: String) {
        let (token, baseURL) = try server.publish(["media": ServedFile(media: try PlainMedia(path: Self.filePath), contentType: "video/mp4")])
        XCTAssertEqual(baseURL, server.baseURL)
        return (token, "\(baseURL)/lib/\(token)/media")
    }

    private func downloaded() throws -> Data { try Data(contentsOf: URL(fileURLWithPath: output)) }

    // MARK: Whole files

    func testAFullGetIsTheFile() throws {
        let (_, url) = try publishFile()
        let result = try curl(url, output: output)
        XCTAssertEqual(result.status, 200)
        XCTAssertEqual(result.headers["content-length"], "\(Self.fileSize)")
        XCTAssertEqual(result.headers["content-type"], "video/mp4")
        XCTAssertEqual(result.headers["accept-ranges"], "bytes")
        XCTAssertEqual(result.headers["cache-control"], "no-cache")
        XCTAssertNil(result.headers["content-range"])
        XCTAssertNil(result.headers["transfer-encoding"], "Content-Length, not chunked")
        XCTAssertTrue(try downloaded() == Self.fileBytes, "the body is the file, byte for byte")
        XCTAssertTrue(pollUntil(within: 5) { server.bodiesInFlight == 0 }, "the body is let go once written")
    }

    func testSmallFilesAndNestedNamesAreServedWhole() throws {
        let playlist = "#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2.0,\nv1/seg00001.ts\n#EXT-X-ENDLIST\n"
        let key: [UInt8] = Array(0..<16)
        let (token, baseURL) = try server.publish([
            "index.m3u8": ServedFile(media: BytesMedia(playlist), contentType: "application/vnd.apple.mpegurl"),
            "v1/seg00001.ts": ServedFile(media: SyntheticMedia(size: 300_000), contentType: "video/mp2t"),
            "key1.bin": ServedFile(media: BytesMedia(key), contentType: "application/octet-stream"),
            "empty.vtt": ServedFile(media: BytesMedia([]), contentType: "text/vtt"),
        ])
        let base = "\(baseURL)/lib/\(token)/"
        XCTAssertEqual(server.url(token: token, name: "index.m3u8"), base + "index.m3u8")

        var result = try curl(base + "index.m3u8", output: output)
        XCTAssertEqual(result.status, 200)
        XCTAssertEqual(result.headers["content-type"], "application/vnd.apple.mpegurl")
        XCTAssertEqual(String(decoding: try downloaded(), as: UTF8.self), playlist)

        result = try curl(base + "key1.bin", output: output)
        XCTAssertEqual(result.headers["content-length"], "16")
        XCTAssertEqual(Array(try downloaded()), key)

        result = try curl(base + "v1/seg00001.ts", output: output)
        XCTAssertEqual(result.status, 200)
        XCTAssertEqual(Array(try downloaded()), SyntheticMedia.bytes(0...299_999), "two chunks and a part")

        result = try curl(base + "empty.vtt", output: output)
        XCTAssertEqual(result.status, 200)
        XCTAssertEqual(result.headers["content-length"], "0")
        XCTAssertEqual(result.sizeDownloaded, 0)
        XCTAssertEqual(try curl(base + "empty.vtt", ["-H", "Range: bytes=0-"]).status, 416, "nothing to take a range of")
    }

    // MARK: Ranges

    func testRangesAreTheRightBytes() throws {
        let (_, url) = try publishFile()
        let size = Self.fileSize
        let cases: [(header: String, first: Int64, last: Int64)] = [
            ("bytes=0-99", 0, 99),  // the start
            ("bytes=5000000-5300000", 5_000_000, 5_300_000),  // the middle, over chunk boundaries
            ("bytes=\(size - 100)-\(size - 1)", size - 100, size - 1),  // the end
            ("bytes=\(size - 10)-\(size + 1000)", size - 10, size - 1),  // past the end: to the end
            ("bytes=-1000", size - 1000, size - 1),  // a suffix
            ("bytes=-\(size * 2)", 0, size - 1),  // a suffix longer than the file: all of it
            ("bytes=\(size - 700_000)-", size - 700_000, size - 1),  // open-ended
            ("bytes=0-0", 0, 0),  // one byte
        ]
        for (header, first, last) in cases {
            let result = try curl(url, ["-H", "Range: \(header)"], output: output)
            XCTAssertEqual(result.status, 206, header)
            XCTAssertEqual(result.headers["content-range"], "bytes \(first)-\(last)/\(size)", header)
            XCTAssertEqual(result.headers["content-length"], "\(last - first + 1)", header)
            XCTAssertEqual(result.headers["content-type"], "video/mp4", header)
            XCTAssertTrue(try downloaded() == Self.fileBytes[Int(first)...Int(last)], "\(header): the right bytes")
        }
    }

    func testUnsatisfiableRangesAre416WithTheSize() throws {
        let (_, url) = try publishFile()
        let size = Self.fileSize
        for header in ["bytes=\(size)-", "bytes=\(size + 5)-\(size + 10)", "bytes=-0", "bytes=99999999999999999999999-"] {
            let result = try curl(url, ["-H", "Range: \(header)"], output: output)
            XCTAssertEqual(result.status, 416, header)
            XCTAssertEqual(result.headers["content-range"], "bytes */\(size)", header)
            XCTAssertEqual(result.sizeDownloaded, 0, header)
        }
    }

    func testRangesItCannotReadAreIgnored() throws {
        let (_, url) = try publishFile()
        // HEAD: the whole file's headers, without sending it.
        for header in ["bytes=5-2", "bytes=0-1,5-6", "items=0-1", "bytes=-", "bytes=a-b"] {
            let result = try curl(url, ["-I", "-H", "Range: \(header)"])
            XCTAssertEqual(result.status, 200, header)
            XCTAssertEqual(result.headers["content-length"], "\(Self.fileSize)", header)
            XCTAssertNil(result.headers["content-range"], header)
        }
    }

    func testHeadAnswersTheHeadersOnly() throws {
        let (_, url) = try publishFile()
        var result = try curl(url, ["-I"])
        XCTAssertEqual(result.status, 200)
        XCTAssertEqual(result.headers["content-length"], "\(Self.fileSize)")
        XCTAssertEqual(result.headers["content-type"], "video/mp4")
        XCTAssertEqual(result.headers["accept-ranges"], "bytes")
        XCTAssertEqual(result.sizeDownloaded, 0)

        result = try curl(url, ["-I", "-H", "Range: bytes=100-199"])
        XCTAssertEqual(result.status, 206)
        XCTAssertEqual(result.headers["content-range"], "bytes 100-199/\(Self.fileSize)")
        XCTAssertEqual(result.headers["content-length"], "100")
        XCTAssertEqual(server.bodiesInFlight, 0, "a HEAD reads nothing")
    }

    func testOtherMethodsAre405() throws {
        let (_, url) = try publishFile()
        let result = try curl(url, ["-X", "POST", "-d", "x"])
        XCTAssertEqual(result.status, 405)
        XCTAssertEqual(result.headers["allow"], "GET, HEAD")
    }

    // MARK: What is not published

    func testUnknownTokensNamesAndPathsAre404() throws {
        let (token, url) = try publishFile()
        let base = server.baseURL
        for path in ["/lib/\(String(repeating: "0", count: 32))/media", "/lib/\(token)/other", "/lib/\(token)/",
                     "/lib/\(token)", "/lib/", "/", "/media", "/lib/\(token)/media/more", "/lib/\(token)/../\(token)/mediax"] {
            XCTAssertEqual(try curl(base + path, ["--path-as-is"]).status, 404, path)
        }
        XCTAssertEqual(try curl(url, ["-I"]).status, 200)
    }

    func testAnUnpublishedTokenIs404() throws {
        let (token, url) = try publishFile()
        XCTAssertEqual(try curl(url, ["-I"]).status, 200)
        server.unpublish(token)
        XCTAssertEqual(try curl(url, ["-I"]).status, 404)
        XCTAssertEqual(try curl(url, ["-H", "Range: bytes=0-9"]).status, 404)
    }

    func testTokensAre16RandomBytesInHex() throws {
        let tokens = try (0..<20).map { _ in try server.publish([:]).token }
        XCTAssertEqual(Set(tokens).count, 20)
        for token in tokens {
            XCTAssertEqual(token.count, 32)
            XCTAssertTrue(token.allSatisfy { $0.isHexDigit && !$0.isUppercase }, token)
            server.unpublish(token)
        }
    }

    func testNamesThatCouldEscapeAreRefused() throws {
        let media = ServedFile(media: BytesMedia("x"), contentType: "text/plain")
        for name in ["../media", "/media", "a/../b", "..", ".", "a/./b", "a//b", "a/", "", "a b", "a%2e", "a?b", "a#b", "a\\b"] {
            XCTAssertThrowsError(try server.publish([name: media, "ok": media]), "\(name) must be refused")
        }
        XCTAssertNoThrow(try server.publish(["v1/seg00001.ts": media, "key1.bin": media, "media": media, "a-b_c~d.m3u8": media]))
    }

    // MARK: Bodies that end early

    /// A client that reads part of a large body and hangs up: libsoup's next write fails,
    /// the message finishes, and the body (its chunk, its media reference, the message and
    /// the connection's descriptor) is let go. Ten times over, then the server still serves.
    func testAClientThatLeavesMidBodyReleasesEverything() throws {
        let (token, _) = try server.publish(["big": ServedFile(media: SyntheticMedia(size: 256 << 20), contentType: "video/mp4")])
        _ = try curl(server.url(token: token, name: "big"), ["-H", "Range: bytes=0-0"])  // the server's own descriptors settle
        let descriptorsBefore = openDescriptors()
        for _ in 0..<10 {
            let connection = try RawConnection(port: port(of: server.baseURL))
            connection.send("GET /lib/\(token)/big HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            XCTAssertGreaterThanOrEqual(connection.receive(atLeast: 3 << 20), 3 << 20, "part of the body came")
            XCTAssertGreaterThan(server.bodiesInFlight, 0, "the rest is being written")
        }  // each connection closes here, with the server blocked on a full socket
        XCTAssertTrue(pollUntil(within: 10) { server.bodiesInFlight == 0 },
                      "every body let go (\(server.bodiesInFlight) still alive)")
        XCTAssertTrue(pollUntil(within: 10) { openDescriptors() <= descriptorsBefore + 1 },
                      "no descriptors left behind: \(descriptorsBefore) before, \(openDescriptors()) after")
        print("[LibraryServer] descriptors before 10 abandoned bodies: \(descriptorsBefore), after: \(openDescriptors())")
        let result = try curl(server.url(token: token, name: "big"), ["-H", "Range: bytes=1000-1999"], output: output)
        XCTAssertEqual(result.status, 206, "the server still serves")
        XCTAssertEqual(Array(try downloaded()), SyntheticMedia.bytes(1000...1999))
    }

    func testUnpublishingEndsABodyInFlight() throws {
        let size: Int64 = 256 << 20
        let (token, _) = try server.publish(["big": ServedFile(media: SyntheticMedia(size: size), contentType: "video/mp4")])
        let connection = try RawConnection(port: port(of: server.baseURL))
        connection.send("GET /lib/\(token)/big HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        XCTAssertGreaterThanOrEqual(connection.receive(atLeast: 1 << 20), 1 << 20)
        server.unpublish(token)
        let received = connection.receive(atLeast: Int(size) + 4096)  // to the end of the connection
        XCTAssertLessThan(received, 64 << 20, "the body stopped at a chunk soon after, not at its end")
        print("[LibraryServer] a 256 MiB body unpublished after 1 MiB ended after \(received >> 10) KiB")
        XCTAssertTrue(pollUntil(within: 5) { server.bodiesInFlight == 0 })
    }

    func testAReadThatFailsBeforeTheBodyIs500AndMidBodyEndsItShort() throws {
        let failing = FailingMedia(inner: SyntheticMedia(size: 4 << 20), failingAt: 1 << 20)
        let (token, _) = try server.publish(["media": ServedFile(media: failing, contentType: "video/mp4")])
        let url = server.url(token: token, name: "media")

        XCTAssertEqual(try curl(url, ["-H", "Range: bytes=2000000-"]).status, 500, "the first chunk cannot be read")

        let result = try curl(url, output: output)
        XCTAssertEqual(result.status, 200)
        XCTAssertEqual(result.headers["content-length"], "\(4 << 20)")
        XCTAssertNotEqual(result.exitCode, 0, "curl reports the transfer short of its length")
        XCTAssertEqual(result.sizeDownloaded, 1 << 20, "every byte before the failure, nothing after")
        XCTAssertEqual(Array(try downloaded()), SyntheticMedia.bytes(0...(1 << 20) - 1))
        XCTAssertTrue(pollUntil(within: 5) { server.bodiesInFlight == 0 })
        XCTAssertEqual(try curl(url, ["-H", "Range: bytes=0-9"]).status, 206, "the server still serves")
    }
}
