import ControlAPI
@testable import ControlServer
import XCTest

/// Who may do what, as pure values: tokens, viewer tokens, CORS origins.
final class AccessPolicyTests: XCTestCase {
    let policy = AccessPolicy(token: "operator-secret", viewerToken: "viewer-secret", corsOrigins: ["https://panel.example:8443"])

    func testWithoutATokenEveryoneMayCommand() {
        let open = AccessPolicy()
        XCTAssertEqual(try open.role(path: "/v1/player", authorization: nil, queryToken: nil).get(), .full)
        XCTAssertFalse(open.requiresToken)
        XCTAssertEqual(AccessPolicy(token: "").requiresToken, false, "an empty token is no token")
    }

    func testRolesFromTheAuthorizationHeader() {
        let rows: [(String, String?, String?, AccessPolicy.Role?)] = [
            ("/v1/player", "Bearer operator-secret", nil, .full),
            ("/v1/player", "Bearer viewer-secret", nil, .viewer),
            ("/v1/player", "Bearer operator-secre", nil, nil),
            ("/v1/player", "Bearer operator-secrets", nil, nil),
            ("/v1/player", "bearer operator-secret", nil, nil),
            ("/v1/player", "operator-secret", nil, nil),
            ("/v1/player", nil, nil, nil),
            ("/metrics", nil, nil, nil),
            // ?token= counts on the event stream only (browsers cannot set WebSocket headers).
            ("/v1/player", nil, "operator-secret", nil),
            ("/v1/events", nil, "operator-secret", .full),
            ("/v1/events", nil, "viewer-secret", .viewer),
            ("/v1/events", nil, "wrong", nil),
            // Public: the health check, the API description and the dashboard's files.
            ("/healthz", nil, nil, .viewer),
            ("/openapi.json", nil, nil, .viewer),
            ("/", nil, nil, .viewer),
        ]
        for (path, authorization, query, expected) in rows {
            let result = policy.role(path: path, authorization: authorization, queryToken: query)
            switch (result, expected) {
            case (.success(let role), let expected?): XCTAssertEqual(role, expected, "\(path) \(authorization ?? "-") \(query ?? "-")")
            case (.failure(let error), nil): XCTAssertEqual(error.code, .unauthorized)
            default: XCTFail("\(path) \(authorization ?? "-") \(query ?? "-"): got \(result), expected \(String(describing: expected))")
            }
        }
    }

    func testViewersMayOnlyRead() {
        for method in ["GET", "HEAD", "OPTIONS"] {
            XCTAssertNil(AccessPolicy.permits(.viewer, method: method), method)
        }
        for method in ["POST", "PUT", "PATCH", "DELETE", "BREW"] {
            XCTAssertEqual(AccessPolicy.permits(.viewer, method: method)?.code, .forbidden, method)
            XCTAssertNil(AccessPolicy.permits(.full, method: method), method)
        }
    }

    func testOrigins() {
        XCTAssertEqual(try policy.checkOrigin(nil, host: "127.0.0.1:8080").get(), nil)
        XCTAssertEqual(try policy.checkOrigin("http://127.0.0.1:8080", host: "127.0.0.1:8080").get(), nil, "same origin")
        XCTAssertEqual(try policy.checkOrigin("https://panel.example:8443", host: "127.0.0.1:8080").get(), "https://panel.example:8443")
        for foreign in ["https://panel.example", "http://panel.example:8443", "https://evil.example", "null", "https://127.0.0.1:8080"] {
            guard case .failure(let error) = policy.checkOrigin(foreign, host: "127.0.0.1:8080") else {
                XCTFail("\(foreign) was accepted")
                continue
            }
            XCTAssertEqual(error.code, .forbidden)
        }
    }

    func testConfigurationProblems() {
        XCTAssertNil(policy.configurationProblem)
        XCTAssertNotNil(AccessPolicy(viewerToken: "v").configurationProblem, "a viewer token without an operator token")
        XCTAssertNotNil(AccessPolicy(token: "same", viewerToken: "same").configurationProblem)
        for bad in ["*", "https://panel.example/", "panel.example", "https://Panel.example", "ftp://x", "https://a b"] {
            XCTAssertNotNil(AccessPolicy(token: "t", corsOrigins: [bad]).configurationProblem, bad)
        }
        for good in ["https://panel.example", "http://10.0.0.5:8080", "http://[::1]:8080"] {
            XCTAssertNil(AccessPolicy(token: "t", corsOrigins: [good]).configurationProblem, good)
        }
    }
}
