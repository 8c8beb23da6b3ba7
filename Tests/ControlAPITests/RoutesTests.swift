import Foundation
import XCTest
import ControlAPI

final class RoutesTests: XCTestCase {
    struct Row {
        var method: String
        var path: String
        var expected: Routes.Match
        var line: UInt
        init(_ method: String, _ path: String, _ expected: Routes.Match, line: UInt = #line) {
            self.method = method
            self.path = path
            self.expected = expected
            self.line = line
        }
    }

    static func found(_ method: String, _ path: String, _ action: Route.Action) -> Routes.Match {
        .found(Route(method, path, action))
    }

    static var rows: [Row] { [
        Row("GET", "/v1/player", found("GET", "/v1/player", .snapshot)),
        Row("PATCH", "/v1/player", found("PATCH", "/v1/player", .command("set"))),
        Row("POST", "/v1/player/open", found("POST", "/v1/player/open", .command("open"))),
        Row("POST", "/v1/player/seek", found("POST", "/v1/player/seek", .command("seek"))),
        Row("POST", "/v1/player/tracks/subtitle", found("POST", "/v1/player/tracks/subtitle", .command("subtitle"))),
        Row("POST", "/v1/pip", found("POST", "/v1/pip", .command("pip.start"))),
        Row("PATCH", "/v1/pip", found("PATCH", "/v1/pip", .command("pip.update"))),
        Row("DELETE", "/v1/pip", found("DELETE", "/v1/pip", .command("pip.stop"))),
        Row("POST", "/v1/pip/swap", found("POST", "/v1/pip/swap", .command("pip.swap"))),
        Row("PUT", "/v1/overlays/watermark", found("PUT", "/v1/overlays/watermark", .command("watermark"))),
        Row("DELETE", "/v1/overlays/watermark", found("DELETE", "/v1/overlays/watermark", .command("watermark.remove"))),
        Row("GET", "/v1/snapshot.jpg", found("GET", "/v1/snapshot.jpg", .snapshotImage)),
        Row("GET", "/v1/analytics", found("GET", "/v1/analytics", .analyticsStatus)),
        Row("DELETE", "/v1/analytics", found("DELETE", "/v1/analytics", .analyticsDrop)),
        Row("GET", "/v1/queue", found("GET", "/v1/queue", .queue)),
        Row("PUT", "/v1/queue", found("PUT", "/v1/queue", .command("queue.set"))),
        Row("POST", "/v1/queue/next", found("POST", "/v1/queue/next", .command("queue.next"))),
        Row("POST", "/v1/queue/previous", found("POST", "/v1/queue/previous", .command("queue.previous"))),
        Row("GET", "/v1/events", found("GET", "/v1/events", .events)),
        Row("GET", "/healthz", found("GET", "/healthz", .health)),
        Row("GET", "/metrics", found("GET", "/metrics", .metrics)),
        Row("GET", "/openapi.json", found("GET", "/openapi.json", .openAPI)),
        // A trailing slash is tolerated.
        Row("POST", "/v1/player/seek/", found("POST", "/v1/player/seek", .command("seek"))),
        Row("GET", "/v1/player/", found("GET", "/v1/player", .snapshot)),
        Row("GET", "/healthz/", found("GET", "/healthz", .health)),
        // HEAD is answered as GET.
        Row("HEAD", "/v1/player", found("GET", "/v1/player", .snapshot)),
        Row("HEAD", "/healthz", found("GET", "/healthz", .health)),
        Row("HEAD", "/v1/snapshot.jpg", found("GET", "/v1/snapshot.jpg", .snapshotImage)),
        Row("GET", "/v1/snapshot.jpg/", found("GET", "/v1/snapshot.jpg", .snapshotImage)),
        Row("DELETE", "/v1/pip/", found("DELETE", "/v1/pip", .command("pip.stop"))),
        // The path exists, the method does not.
        Row("GET", "/v1/player/seek", .methodNotAllowed(allowed: ["POST"])),
        Row("HEAD", "/v1/player/play", .methodNotAllowed(allowed: ["POST"])),
        Row("DELETE", "/v1/player", .methodNotAllowed(allowed: ["GET", "PATCH"])),
        Row("POST", "/v1/player", .methodNotAllowed(allowed: ["GET", "PATCH"])),
        Row("POST", "/v1/events", .methodNotAllowed(allowed: ["GET"])),
        Row("PUT", "/openapi.json/", .methodNotAllowed(allowed: ["GET"])),
        Row("GET", "/v1/pip", .methodNotAllowed(allowed: ["POST", "PATCH", "DELETE"])),
        Row("PUT", "/v1/pip", .methodNotAllowed(allowed: ["POST", "PATCH", "DELETE"])),
        Row("GET", "/v1/pip/swap", .methodNotAllowed(allowed: ["POST"])),
        Row("POST", "/v1/overlays/watermark", .methodNotAllowed(allowed: ["PUT", "DELETE"])),
        Row("PATCH", "/v1/overlays/watermark", .methodNotAllowed(allowed: ["PUT", "DELETE"])),
        Row("POST", "/v1/snapshot.jpg", .methodNotAllowed(allowed: ["GET"])),
        Row("POST", "/v1/queue", .methodNotAllowed(allowed: ["GET", "PUT", "PATCH"])),
        Row("DELETE", "/v1/queue", .methodNotAllowed(allowed: ["GET", "PUT", "PATCH"])),
        Row("GET", "/v1/queue/next", .methodNotAllowed(allowed: ["POST"])),
        Row("POST", "/v1/analytics", .methodNotAllowed(allowed: ["GET", "DELETE", "PATCH"])),
        // No such path. libsoup matches by prefix, so prefixes and extensions must not match.
        Row("GET", "/", .notFound),
        Row("GET", "", .notFound),
        Row("GET", "/v1", .notFound),
        Row("GET", "/v1/nope", .notFound),
        Row("POST", "/v1/player/seek/extra", .notFound),
        Row("GET", "/v1/player//", .notFound),
        Row("GET", "/healthzz", .notFound),
        Row("GET", "/V1/PLAYER", .notFound),
        Row("POST", "/v1/player/tracks", .notFound),
        Row("GET", "/v1/snapshot", .notFound),
        Row("GET", "/v1/snapshot.jpeg", .notFound),
        Row("GET", "/v1/snapshot.png", .notFound),
        Row("PUT", "/v1/overlays", .notFound),
        Row("PUT", "/v1/overlays/text", .notFound),
        Row("POST", "/v1/pip/start", .notFound),
        Row("POST", "/v1/pipswap", .notFound),
        Row("POST", "/v1/queue/skip", .notFound),
        Row("GET", "/v1/queues", .notFound),
    ] }

    func testMatchRows() {
        for row in Self.rows {
            XCTAssertEqual(Routes.match(method: row.method, path: row.path), row.expected,
                           "\(row.method) \(row.path)", line: row.line)
        }
    }

    func testEveryRouteMatchesItself() {
        for route in Routes.all {
            XCTAssertEqual(Routes.match(method: route.method, path: route.path), .found(route))
            XCTAssertEqual(Routes.match(method: route.method, path: route.path + "/"), .found(route))
        }
    }

    func testRoutesAreUniqueAndCommandsExist() {
        let pairs = Routes.all.map { "\($0.method) \($0.path)" }
        XCTAssertEqual(Set(pairs).count, pairs.count, "duplicate routes: \(pairs)")
        for route in Routes.all {
            XCTAssertTrue(["GET", "POST", "PATCH", "PUT", "DELETE"].contains(route.method), route.method)
            XCTAssertTrue(route.path.hasPrefix("/") && (route.path == "/" || !route.path.hasSuffix("/")), route.path)
            if case .command(let name) = route.action {
                XCTAssertTrue(Command.names.contains(name), "route \(route.path) names unknown command \(name)")
            }
        }
        let routed = Set(Routes.all.compactMap { route -> String? in
            if case .command(let name) = route.action { return name } else { return nil }
        })
        XCTAssertEqual(routed, Set(Command.names), "every command has an HTTP route")
    }
}

final class ErrorCodeTests: XCTestCase {
    func testEveryCodeIsAnErrorStatusAndSnakeCase() {
        let snake = try! NSRegularExpression(pattern: "^[a-z]+(_[a-z]+)*$")
        for code in ErrorCode.allCases {
            XCTAssertTrue((400...599).contains(code.httpStatus), "\(code.rawValue) -> \(code.httpStatus)")
            let raw = code.rawValue
            XCTAssertNotNil(snake.firstMatch(in: raw, range: NSRange(raw.startIndex..., in: raw)), "\(raw) is not snake_case")
            XCTAssertEqual(APIError(code, "m").httpStatus, code.httpStatus)
        }
        XCTAssertEqual(Set(ErrorCode.allCases.map(\.rawValue)).count, ErrorCode.allCases.count)
    }

    func testContractCodesAndStatuses() {
        let expected: [String: Int] = [
            "invalid_json": 400, "invalid_argument": 400, "unsupported_uri": 400, "unauthorized": 401,
            "forbidden": 403, "not_found": 404, "unknown_track": 404, "unknown_variant": 404,
            "route_not_found": 404, "method_not_allowed": 405, "timeout": 408, "too_many_requests": 429, "not_seekable": 409,
            "not_live": 409, "no_source": 409, "payload_too_large": 413, "unsupported_media_type": 415,
            "media_error": 422, "network_error": 422, "pipeline_error": 422, "internal_error": 500,
            "no_pip": 409, "no_video": 503, "subtitle_error": 422, "headers_too_large": 431, "missing_plugin": 422,
            "unsupported_format": 422, "not_in_library": 404, "download_incomplete": 409, "license_expired": 403,
            "already_in_library": 409, "quota_exceeded": 413, "invalid_state": 409,
            "session_blocked": 403, "key_error": 422, "protected_content": 403, "resolver_error": 422,
        ]
        for (raw, status) in expected {
            guard let code = ErrorCode(rawValue: raw) else {
                XCTFail("missing contract code \(raw)")
                continue
            }
            XCTAssertEqual(code.httpStatus, status, raw)
        }
        XCTAssertEqual(Set(ErrorCode.allCases.map(\.rawValue)), Set(expected.keys), "a new code needs a row here and in the OpenAPI table")
    }

    func testAPIErrorCodableRoundTrip() throws {
        let error = APIError(.unknownTrack, "no audio track 'audio-9'")
        XCTAssertEqual(encodedText(error), #"{"code":"unknown_track","message":"no audio track 'audio-9'"}"#)
        XCTAssertEqual(try JSONDecoder().decode(APIError.self, from: JSONCoding.encode(error)), error)
        XCTAssertEqual(error.description, "unknown_track: no audio track 'audio-9'")
    }
}
