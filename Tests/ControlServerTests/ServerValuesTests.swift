import XCTest
import ControlAPI
@testable import ControlServer

final class ListenAddressTests: XCTestCase {
    struct Row {
        var text: String
        var host: String?
        var port: UInt16
        var loopback: Bool
        var description: String
        var line: UInt
        /// A row that must parse.
        init(_ text: String, host: String, port: UInt16, loopback: Bool, _ description: String, line: UInt = #line) {
            self.text = text
            self.host = host
            self.port = port
            self.loopback = loopback
            self.description = description
            self.line = line
        }
        /// A row that must be refused.
        init(bad text: String, line: UInt = #line) {
            self.text = text
            self.host = nil
            self.port = 0
            self.loopback = false
            self.description = ""
            self.line = line
        }
    }

    static let rows: [Row] = [
        Row("127.0.0.1:8080", host: "127.0.0.1", port: 8080, loopback: true, "127.0.0.1:8080"),
        Row("127.1.2.3:1", host: "127.1.2.3", port: 1, loopback: true, "127.1.2.3:1"),
        Row("[::1]:0", host: "::1", port: 0, loopback: true, "[::1]:0"),
        Row("localhost:80", host: "127.0.0.1", port: 80, loopback: true, "127.0.0.1:80"),
        Row(":8080", host: "127.0.0.1", port: 8080, loopback: true, "127.0.0.1:8080"),
        Row("0.0.0.0:1", host: "0.0.0.0", port: 1, loopback: false, "0.0.0.0:1"),
        Row("192.168.1.10:65535", host: "192.168.1.10", port: 65535, loopback: false, "192.168.1.10:65535"),
        Row("[::]:8080", host: "::", port: 8080, loopback: false, "[::]:8080"),
        Row("[fe80::1]:9", host: "fe80::1", port: 9, loopback: false, "[fe80::1]:9"),
        Row(bad: "8080"),
        Row(bad: ""),
        Row(bad: "host:99999"),
        Row(bad: "127.0.0.1:65536"),
        Row(bad: "127.0.0.1:-1"),
        Row(bad: "127.0.0.1:"),
        Row(bad: "127.0.0.1:http"),
        Row(bad: "127.0.0.1:80 "),
        Row(bad: "::1:80"),
        Row(bad: "::1"),
        Row(bad: "[::1]"),
        Row(bad: "[::1]80"),
        Row(bad: "[::1:80"),
    ]

    func testParsingRows() {
        for row in Self.rows {
            let parsed = ListenAddress(row.text)
            guard let host = row.host else {
                XCTAssertNil(parsed, "'\(row.text)' should be refused, got \(String(describing: parsed))", line: row.line)
                continue
            }
            guard let parsed else {
                XCTFail("'\(row.text)' should parse", line: row.line)
                continue
            }
            XCTAssertEqual(parsed.host, host, row.text, line: row.line)
            XCTAssertEqual(parsed.port, row.port, row.text, line: row.line)
            XCTAssertEqual(parsed.isLoopback, row.loopback, row.text, line: row.line)
            XCTAssertEqual(parsed.description, row.description, row.text, line: row.line)
            XCTAssertEqual(ListenAddress(parsed.description), parsed, "description parses back: \(row.text)", line: row.line)
        }
    }
}

final class ConstantTimeEqualsTests: XCTestCase {
    func testRows() {
        let rows: [(String, String, Bool)] = [
            ("", "", true),
            ("secret-token", "secret-token", true),
            ("héllo ✓", "héllo ✓", true),
            ("secret-token", "secret-tokeN", false),
            ("secret-token", "Secret-token", false),
            ("secret", "secret-token", false),
            ("secret-token", "secret", false),
            ("", "x", false),
            ("x", "", false),
            ("abc", "abc\0", false),
            ("abc\0", "abc", false),
            ("e\u{301}", "é", false),  // compared as bytes, not as canonically equal strings
        ]
        for (a, b, equal) in rows {
            XCTAssertEqual(constantTimeEquals(a, b), equal, "'\(a)' vs '\(b)'")
            XCTAssertEqual(constantTimeEquals(b, a), equal, "'\(b)' vs '\(a)'")
        }
    }
}

final class WaitRequestTests: XCTestCase {
    func testValid() throws {
        XCTAssertNil(try WaitRequest(state: nil, timeout: nil))
        let plain = try XCTUnwrap(try WaitRequest(state: "playing", timeout: nil))
        XCTAssertEqual(plain.state, .playing)
        XCTAssertEqual(plain.timeout, WaitRequest.defaultTimeout)
        let timed = try XCTUnwrap(try WaitRequest(state: "ended", timeout: "2.5"))
        XCTAssertEqual(timed.state, .ended)
        XCTAssertEqual(timed.timeout, 2.5)
        XCTAssertEqual(try WaitRequest(state: "idle", timeout: "600")?.timeout, 600)
        for state in PlaybackState.allCases {
            XCTAssertEqual(try WaitRequest(state: state.rawValue, timeout: nil)?.state, state)
        }
    }

    func testInvalid() {
        let rows: [(String?, String?)] = [
            (nil, "5"), ("dancing", nil), ("Playing", nil), ("", nil),
            ("playing", "0"), ("playing", "-1"), ("playing", "601"), ("playing", "x"),
            ("playing", ""), ("playing", "nan"), ("playing", "inf"),
        ]
        for (state, timeout) in rows {
            do {
                let request = try WaitRequest(state: state, timeout: timeout)
                XCTFail("wait=\(state ?? "nil") timeout=\(timeout ?? "nil") accepted: \(String(describing: request))")
            } catch {
                XCTAssertEqual(error.code, .invalidArgument)
            }
        }
    }
}
