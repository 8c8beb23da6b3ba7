import Foundation
import XCTest
import ControlAPI
@testable import ControlServer

final class OpenAPIDocumentTests: XCTestCase {
    static let httpMethods: Set<String> = ["get", "put", "post", "delete", "options", "head", "patch", "trace"]

    private func document() throws -> [String: Any] {
        let object = try JSONSerialization.jsonObject(with: Data(OpenAPIDocument.json.utf8))
        return try XCTUnwrap(object as? [String: Any], "the document is a JSON object")
    }

    func testParsesAsOpenAPI31() throws {
        let doc = try document()
        let version = try XCTUnwrap(doc["openapi"] as? String)
        XCTAssertTrue(version.hasPrefix("3.1."), version)
        let info = try XCTUnwrap(doc["info"] as? [String: Any])
        XCTAssertNotNil(info["title"] as? String)
        XCTAssertNotNil(info["version"] as? String)
    }

    func testOperationsMatchTheRoutingTableExactly() throws {
        let paths = try XCTUnwrap(try document()["paths"] as? [String: Any])
        var documented = Set<String>()
        for (path, item) in paths {
            let operations = try XCTUnwrap(item as? [String: Any], path)
            for key in operations.keys where Self.httpMethods.contains(key.lowercased()) {
                XCTAssertEqual(key, key.lowercased(), "\(path): methods are lowercase in OpenAPI")
                documented.insert("\(key.uppercased()) \(path)")
            }
        }
        let routed = Set(Routes.all.map { "\($0.method) \($0.path)" })
        XCTAssertEqual(documented.subtracting(routed), [], "documented but not routed")
        XCTAssertEqual(routed.subtracting(documented), [], "routed but not documented")
    }

    func testEveryOperationHasResponsesAndAUniqueOperationID() throws {
        let paths = try XCTUnwrap(try document()["paths"] as? [String: Any])
        var ids: [String] = []
        for (path, item) in paths {
            for (method, operation) in (item as? [String: Any] ?? [:]) where Self.httpMethods.contains(method) {
                let op = try XCTUnwrap(operation as? [String: Any], "\(method) \(path)")
                XCTAssertFalse((op["responses"] as? [String: Any] ?? [:]).isEmpty, "\(method) \(path) has no responses")
                if let id = op["operationId"] as? String { ids.append(id) }
            }
        }
        XCTAssertEqual(Set(ids).count, ids.count, "duplicate operationId in \(ids.sorted())")
    }

    func testEveryErrorCodeIsDocumented() throws {
        for code in ErrorCode.allCases {
            XCTAssertTrue(OpenAPIDocument.json.contains(code.rawValue), "\(code.rawValue) is not in openapi.json")
        }
        let doc = try document()
        let codes = try XCTUnwrap(schema("ErrorCode", in: doc)["enum"] as? [String])
        XCTAssertEqual(codes.count, Set(codes).count, "duplicate codes in the ErrorCode schema")
        XCTAssertEqual(Set(codes), Set(ErrorCode.allCases.map(\.rawValue)), "the ErrorCode schema's enum")
        // The table under Errors in the introduction gives each code its status.
        let introduction = try XCTUnwrap((doc["info"] as? [String: Any])?["description"] as? String)
        for code in ErrorCode.allCases {
            XCTAssertTrue(introduction.contains("| `\(code.rawValue)` | \(code.httpStatus) |"),
                          "the Errors table has no row '| `\(code.rawValue)` | \(code.httpStatus) |'")
        }
    }

    /// One event of every type. `eventTypeName` does not compile when `PlayerEvent` gains a
    /// case: add it there and here, and to the document.
    static let everyEvent: [PlayerEvent] = [
        .snapshot(PlayerSnapshot()), .state(StateChange(state: .playing, previous: .opening)),
        .position(PositionUpdate(position: 1, duration: nil)), .buffering(BufferingUpdate(percent: 50)), .tracks(Tracks()),
        .seek(SeekUpdate(position: 1, exact: false)),
        .settings(SettingsUpdate()),
        .source(nil), .variants([]), .variant(VariantState()), .live(LiveInfo(edge: 10, behind: 0, window: 10)),
        .reconnecting(ReconnectingUpdate(attempt: 1, delay: 1, reason: "eof")),
        .recovered(RecoveredUpdate(attempts: 2, downtime: 3.5)),
        .pip(nil), .watermark(nil), .cue(nil),
        .analytics(AnalyticsUpdate(seq: 1, event: .begin, outcome: .sent, reason: nil, pending: 0)), .queue(nil),
        .download(DownloadUpdate(LibraryItem(id: "lib-1", contentId: "c", userId: nil, title: nil, uri: "http://o/f.mp4", kind: .file,
                                             state: .downloading, bytes: 1, totalBytes: 2, error: nil,
                                             license: LicenseState(expires: nil, maxPlays: nil, plays: 0, maxPlayTime: nil, playTime: 0,
                                                                   expired: false, reason: nil),
                                             createdAt: "2026-12-01T00:00:00.000Z", completedAt: nil))),
        .library(LibraryChange(id: "lib-1", change: .added)),
        .blocked(BlockedUpdate(code: "concurrent", message: "watching elsewhere")),
        .error(APIError(.mediaError, "m")), .eos,
    ]

    static func eventTypeName(_ event: PlayerEvent) -> String {
        switch event {
        case .snapshot, .state, .position, .buffering, .tracks, .seek, .settings, .source, .variants, .variant, .live,
             .reconnecting, .recovered, .pip, .watermark, .cue, .analytics, .queue, .download, .library,
             .blocked, .error, .eos:
            return event.type
        }
    }

    func testEveryEventTypeIsDocumented() throws {
        let doc = try document()
        let types = Self.everyEvent.map(Self.eventTypeName)
        XCTAssertEqual(Set(types).count, types.count, "everyEvent lists a type twice")
        XCTAssertEqual(types, PlayerEvent.types, "PlayerEvent.types, in order")
        let event = try schema("Event", in: doc)
        let properties = try XCTUnwrap(event["properties"] as? [String: Any])
        let documented = try XCTUnwrap((properties["type"] as? [String: Any])?["enum"] as? [String])
        XCTAssertEqual(Set(documented), Set(types), "the Event schema's type enum")
        // Each type says what its data is.
        let conditions = try XCTUnwrap(event["allOf"] as? [[String: Any]])
        let described = Set(conditions.compactMap { condition in
            (((condition["if"] as? [String: Any])?["properties"] as? [String: Any])?["type"] as? [String: Any])?["const"] as? String
        })
        XCTAssertEqual(described, Set(types), "an Event allOf branch per type")
        // And the prose of the events route lists them all.
        let stream = try XCTUnwrap(try operation("get", "/v1/events", in: doc)["description"] as? String)
        for type in types {
            XCTAssertTrue(stream.contains("`\(type)`"), "the /v1/events description does not name `\(type)`")
        }
    }

    func testLatestValueEventsAreListedExactly() throws {
        let doc = try document()
        let latest = Set(Self.everyEvent.filter(\.isLatestValue).map(\.type))
        let stream = try XCTUnwrap(try operation("get", "/v1/events", in: doc)["description"] as? String)
        XCTAssertEqual(backticked(after: "Latest-value events (", upTo: ")", in: stream), latest, "the /v1/events description")
        let event = try XCTUnwrap(try schema("Event", in: doc)["description"] as? String)
        XCTAssertEqual(backticked(after: "Latest-value types (a newer one replaces an older one still queued for a slow client): ",
                                  upTo: ".", in: event), latest, "the Event schema's description")
    }

    func testWebSocketCommandsMatchTheCommandsAndTheirRoutes() throws {
        let doc = try document()
        let command = try schema("WebSocketCommand", in: doc)
        let names = try XCTUnwrap(((command["properties"] as? [String: Any])?["command"] as? [String: Any])?["enum"] as? [String])
        XCTAssertEqual(names, Command.names, "the WebSocketCommand schema's enum, in Command.names order")
        // `args` of a name is the body schema of its HTTP route.
        var argsByName: [String: String] = [:]
        for condition in try XCTUnwrap(command["allOf"] as? [[String: Any]]) {
            let name = try XCTUnwrap(((((condition["if"] as? [String: Any])?["properties"] as? [String: Any])?["command"] as? [String: Any])?["const"] as? String))
            let args = (((condition["then"] as? [String: Any])?["properties"] as? [String: Any])?["args"] as? [String: Any])?["$ref"] as? String
            argsByName[name] = try XCTUnwrap(args, name)
        }
        var bodyByName: [String: String] = [:]
        for route in Routes.all {
            guard case .command(let name) = route.action else { continue }
            let op = try operation(route.method.lowercased(), route.path, in: doc)
            let description = try XCTUnwrap(op["description"] as? String, "\(route.method) \(route.path)")
            XCTAssertTrue(description.contains("WebSocket command `\(name)`"), "\(route.method) \(route.path) does not name `\(name)`")
            let parameters = (op["parameters"] as? [[String: Any]] ?? []).compactMap { $0["$ref"] as? String }
            XCTAssertEqual(parameters, ["#/components/parameters/wait", "#/components/parameters/timeout"],
                           "\(route.method) \(route.path) takes ?wait= and ?timeout=")
            let body = ((((op["requestBody"] as? [String: Any])?["content"] as? [String: Any])?["application/json"] as? [String: Any])?["schema"] as? [String: Any])?["$ref"] as? String
            if let body { bodyByName[name] = body }
        }
        XCTAssertEqual(argsByName, bodyByName, "WebSocket args and HTTP bodies")
    }

    func testSnapshotAndSettingsSchemasListEveryEncodedKey() throws {
        let doc = try document()
        var full = PlayerSnapshot()
        full.pip = PipInfo(uri: "file:///media/b.mp4", state: .playing, rect: .defaultInset, muted: true, swapped: false)
        full.watermark = WatermarkRequest(text: "LIVE")
        full.cue = Cue(text: "Hello", start: 1, end: 2)
        full.abLoop = ABLoop(a: 1, b: 2)
        full.queue = QueueInfo(items: [QueueInfo.Item(uri: "a.mp4", contentId: nil)], index: 0, loop: false)
        let settings = SettingsUpdate()
        let looping = SettingsUpdate(abLoop: ABLoop(a: 1, b: 2))
        let cases: [(String, Data)] = [
            ("PlayerSnapshot", JSONCoding.encode(PlayerSnapshot())), ("PlayerSnapshot", JSONCoding.encode(full)),
            ("SettingsUpdate", JSONCoding.encode(settings)), ("SettingsUpdate", JSONCoding.encode(looping)),
            ("ABLoop", JSONCoding.encode(full.abLoop)),
            ("QueueInfo", JSONCoding.encode(full.queue)), ("QueueInfo", JSONCoding.encode(QueueInfo(items: [], index: nil, loop: false))),
            ("PipInfo", JSONCoding.encode(full.pip)), ("Cue", JSONCoding.encode(full.cue)),
            ("SubtitleStyle", JSONCoding.encode(SubtitleStyle())),
        ]
        for (name, data) in cases {
            let keys = Set(try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any], name).keys)
            let object = try schema(name, in: doc)
            XCTAssertEqual(Set(object["required"] as? [String] ?? []), keys, "\(name): required")
            XCTAssertEqual(Set((object["properties"] as? [String: Any] ?? [:]).keys), keys, "\(name): properties")
        }
    }

    func testSnapshotImageRoute() throws {
        let op = try operation("get", "/v1/snapshot.jpg", in: try document())
        let width = try XCTUnwrap((op["parameters"] as? [[String: Any]])?.first { $0["name"] as? String == "width" })
        XCTAssertEqual(width["in"] as? String, "query")
        let range = try XCTUnwrap(width["schema"] as? [String: Any])
        XCTAssertEqual(range["type"] as? String, "integer")
        XCTAssertEqual(range["minimum"] as? Int, 16)
        XCTAssertEqual(range["maximum"] as? Int, 3840)
        let responses = try XCTUnwrap(op["responses"] as? [String: Any])
        let ok = try XCTUnwrap(responses["200"] as? [String: Any])
        XCTAssertNotNil((ok["content"] as? [String: Any])?["image/jpeg"])
        XCTAssertNotNil((ok["headers"] as? [String: Any])?["Cache-Control"])
        XCTAssertEqual((responses["503"] as? [String: Any])?["$ref"] as? String, "#/components/responses/NoVideo")
    }

    /// The request schemas say what the decoders accept, as schemathesis checks against the
    /// daemon (Tests/Schema): an unknown field is refused (`additionalProperties: false`), and
    /// an optional field sent as `null` is allowed by the schema exactly when the decoder
    /// takes it (as absent).
    func testRequestSchemasAcceptWhatTheDecodersAccept() throws {
        let doc = try document()
        let samples: [(schema: String, command: String, body: [String: Any])] = [
            ("OpenRequest", "open", ["uri": "a.mp4"]),
            ("SeekRequest", "seek", ["position": 1]),
            ("SettingsPatch", "set", [:]),
            ("SubtitleRequest", "subtitle", ["id": "subtitle-1"]),
            ("PipStartRequest", "pip.start", ["uri": "a.mp4"]),
            ("PipUpdateRequest", "pip.update", ["muted": true]),
            ("WatermarkRequest", "watermark", ["text": "LIVE"]),
            ("QueueRequest", "queue.set", ["items": [Any]()]),
        ]
        func decodes(_ command: String, _ body: [String: Any]) throws -> Bool {
            let data = try JSONSerialization.data(withJSONObject: body)
            return (try? Command.decode(name: command, arguments: data)) != nil
        }
        for (name, command, body) in samples {
            let object = try schema(name, in: doc)
            XCTAssertTrue(try decodes(command, body), "\(name): the sample \(body) decodes")
            XCTAssertEqual(object["additionalProperties"] as? Bool, false, "\(name): additionalProperties")
            XCTAssertFalse(try decodes(command, body.merging(["unknownField": 1]) { a, _ in a }), "\(name): an unknown field")
            let properties = try XCTUnwrap(object["properties"] as? [String: Any], name)
            for (property, definition) in properties where body[property] == nil {
                let accepted = try decodes(command, body.merging([property: NSNull()]) { a, _ in a })
                XCTAssertEqual(allowsNull(definition, in: doc), accepted,
                               "\(name).\(property): the decoder \(accepted ? "takes" : "refuses") null, the schema does not say so")
            }
        }
    }

    /// Whether `definition` allows `null`: its `type` names it, or a `oneOf`/`anyOf` branch
    /// (local `$ref`s followed) does.
    private func allowsNull(_ definition: Any, in doc: [String: Any]) -> Bool {
        guard var object = definition as? [String: Any] else { return false }
        if let ref = object["$ref"] as? String, ref.hasPrefix("#/") {
            var node: Any? = doc
            for part in ref.dropFirst(2).split(separator: "/") { node = (node as? [String: Any])?[String(part)] }
            object = node as? [String: Any] ?? [:]
        }
        if let type = object["type"] as? String, type == "null" { return true }
        if let types = object["type"] as? [String], types.contains("null") { return true }
        let branches = (object["oneOf"] as? [Any] ?? []) + (object["anyOf"] as? [Any] ?? [])
        return branches.contains { allowsNull($0, in: doc) }
    }

    private func schema(_ name: String, in doc: [String: Any]) throws -> [String: Any] {
        let schemas = try XCTUnwrap((doc["components"] as? [String: Any])?["schemas"] as? [String: Any])
        return try XCTUnwrap(schemas[name] as? [String: Any], "no schema \(name)")
    }

    private func operation(_ method: String, _ path: String, in doc: [String: Any]) throws -> [String: Any] {
        let item = try XCTUnwrap((doc["paths"] as? [String: Any])?[path] as? [String: Any], "no path \(path)")
        return try XCTUnwrap(item[method] as? [String: Any], "no \(method) \(path)")
    }

    /// The `names` written in backticks between `start` and the next `end` in `text`.
    private func backticked(after start: String, upTo end: String, in text: String) -> Set<String> {
        guard let from = text.range(of: start), let to = text[from.upperBound...].range(of: end) else { return [] }
        return Set(text[from.upperBound..<to.lowerBound].split(separator: "`", omittingEmptySubsequences: false)
            .enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) })
    }

    func testEveryLocalReferenceResolves() throws {
        let doc = try document()
        var refs: [String] = []
        func walk(_ value: Any) {
            if let object = value as? [String: Any] {
                if let ref = object["$ref"] as? String { refs.append(ref) }
                object.values.forEach(walk)
            } else if let array = value as? [Any] {
                array.forEach(walk)
            }
        }
        walk(doc)
        XCTAssertFalse(refs.isEmpty)
        for ref in Set(refs) {
            guard ref.hasPrefix("#/") else { continue }
            var node: Any? = doc
            for part in ref.dropFirst(2).split(separator: "/") {
                let key = part.replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
                node = (node as? [String: Any])?[key]
            }
            XCTAssertNotNil(node, "\(ref) does not resolve")
        }
    }
}
