import Foundation
import MarqueeClient
import TestMedia
import XCTest

/// The watermark: a green PNG or red text over a black clip, found in the composed frame
/// (`GET /v1/snapshot.jpg`) where its `position` puts it.
final class WatermarkTests: XCTestCase {
    var daemon: Daemon!

    override func setUpWithError() throws { daemon = try Daemon() }
    override func tearDown() { XCTAssertEqual(daemon.stop(), 0) }

    /// Frames are read at 320x180 (2x2 blocks of a 640x360 snapshot): fine enough for text
    /// a tenth of the frame high, coarse enough to smooth JPEG noise.
    static let readWidth = 320, readHeight = 180

    static let quadrants: [String: FrameRect] = [
        "top-left": FrameRect(x: 0, y: 0, width: 0.5, height: 0.5),
        "top-right": FrameRect(x: 0.5, y: 0, width: 0.5, height: 0.5),
        "bottom-left": FrameRect(x: 0, y: 0.5, width: 0.5, height: 0.5),
        "bottom-right": FrameRect(x: 0.5, y: 0.5, width: 0.5, height: 0.5),
    ]

    /// At least `minimum` pixels match inside the quadrant named `position` and (almost)
    /// none anywhere else.
    static func onlyIn(_ position: String, _ frame: FramePixels, minimum: Int, where predicate: (RGB) -> Bool) -> Bool {
        let quadrant = quadrants[position]!
        return frame.count(in: quadrant, where: predicate) >= minimum
            && frame.count(outside: quadrant, where: predicate) <= 2
    }

    func testImageWatermarkAtTopLeftThenBottomRight() throws {
        let png = try OutputFixtures.solidPNG(.green)
        try daemon.openPlaying(try OutputFixtures.solidClip(.black))
        var (status, body) = try daemon.send("PUT", "/v1/overlays/watermark",
                                             ["image": png.path, "position": "top-left", "size": 0.2])
        XCTAssertEqual(status, 200, "\(body)")
        let watermark = try XCTUnwrap(body["watermark"] as? [String: Any], "the snapshot echoes the watermark: \(body)")
        XCTAssertTrue((watermark["image"] as? String)?.hasSuffix(png.lastPathComponent) == true, "\(watermark)")
        XCTAssertEqual(watermark["position"] as? String, "top-left")
        XCTAssertEqual(watermark["size"] as? Double ?? 0, 0.2, accuracy: 1e-9)
        XCTAssertTrue(watermark["text"] == nil || watermark["text"] is NSNull, "\(watermark)")

        // 0.2 of 360 px: a 72 px square, 36x36 at the read size; half of it is plenty.
        var frame = try daemon.waitForFrame("a green square in the top-left corner only",
                                            width: Self.readWidth, height: Self.readHeight) {
            Self.onlyIn("top-left", $0, minimum: 600, where: \.isGreen)
        }
        if let box = frame?.boundingBox(where: \.isGreen) {
            XCTAssertEqual(box.height, 0.2, accuracy: 0.05, "size is a fraction of the frame height: \(box)")
            XCTAssertEqual(box.width * 16 / 9, 0.2, accuracy: 0.05, "a square PNG stays square: \(box)")
            XCTAssertLessThan(box.x, 0.1, "top-left means near the left edge: \(box)")
            XCTAssertLessThan(box.y, 0.15, "top-left means near the top edge: \(box)")
        }

        (status, body) = try daemon.send("PUT", "/v1/overlays/watermark",
                                         ["image": png.path, "position": "bottom-right", "size": 0.2])
        XCTAssertEqual(status, 200, "\(body)")
        XCTAssertEqual((body["watermark"] as? [String: Any])?["position"] as? String, "bottom-right")
        frame = try daemon.waitForFrame("the green square moved to the bottom-right corner only",
                                        width: Self.readWidth, height: Self.readHeight) {
            Self.onlyIn("bottom-right", $0, minimum: 600, where: \.isGreen)
        }
        if let box = frame?.boundingBox(where: \.isGreen) {
            XCTAssertGreaterThan(box.maxX, 0.9, "bottom-right means near the right edge: \(box)")
            XCTAssertGreaterThan(box.maxY, 0.85, "bottom-right means near the bottom edge: \(box)")
        }
        XCTAssertEqual(try daemon.snapshot().state, "playing")
    }

    /// Resizing a text watermark while frames are drawn once crashed Pango on the streaming
    /// thread within a few dozen changes; changes are now made between frames.
    func testRapidResizesWhilePlayingLeaveTheDaemonStanding() throws {
        let (status, _) = try daemon.post("/v1/player/open?wait=playing", ["uri": "demo://"])
        XCTAssertEqual(status, 200)
        let sizes = [0.05, 0.04, 0.01, 0.5]
        for i in 0..<400 {
            let r = try daemon.client.put("/v1/overlays/watermark", json: ["text": "LIVE", "size": sizes[i % sizes.count], "position": "top-left"])
            XCTAssertEqual(r.status, 200, "change \(i): \(r.text)")
            if r.status != 200 { break }
        }
        let s = try daemon.snapshot()
        XCTAssertEqual(s.state, "playing")
        XCTAssertEqual((s["watermark"] as? [String: Any])?["size"] as? Double, 0.5)
    }

    func testTextWatermarkInTheCornerItNames() throws {
        try daemon.openPlaying(try OutputFixtures.solidClip(.black))
        for position in ["top-right", "bottom-left"] {
            let (status, body) = try daemon.send("PUT", "/v1/overlays/watermark",
                                                 ["text": "MARQUEE", "color": "#FF0000FF", "size": 0.1, "position": position])
            XCTAssertEqual(status, 200, "\(body)")
            let watermark = body["watermark"] as? [String: Any]
            XCTAssertEqual(watermark?["text"] as? String, "MARQUEE", "\(body)")
            XCTAssertEqual(watermark?["color"] as? String, "#FF0000FF", "\(body)")
            XCTAssertEqual(watermark?["position"] as? String, position, "\(body)")
            try daemon.waitForFrame("red text in the \(position) corner only", width: Self.readWidth, height: Self.readHeight) {
                Self.onlyIn(position, $0, minimum: 60, where: \.isReddish)
            }
        }
    }

    func testCentreAndEdgePositions() throws {
        let png = try OutputFixtures.solidPNG(.green)
        try daemon.openPlaying(try OutputFixtures.solidClip(.black))
        // Where each position puts the image's centre (fractions of the frame), loosely.
        let expectations: [(String, ClosedRange<Double>, ClosedRange<Double>)] = [
            ("center", 0.4...0.6, 0.4...0.6),
            ("top", 0.4...0.6, 0.0...0.25),
            ("bottom", 0.4...0.6, 0.75...1.0),
            ("left", 0.0...0.2, 0.4...0.6),
            ("right", 0.8...1.0, 0.4...0.6),
        ]
        for (position, xs, ys) in expectations {
            let (status, body) = try daemon.send("PUT", "/v1/overlays/watermark",
                                                 ["image": png.path, "position": position, "size": 0.15])
            XCTAssertEqual(status, 200, "\(position): \(body)")
            try daemon.waitForFrame("the green square at \(position) (centre x in \(xs), y in \(ys))",
                                    width: Self.readWidth, height: Self.readHeight) { frame in
                guard frame.count(where: \.isGreen) > 300, let c = frame.centroid(where: \.isGreen) else { return false }
                return xs.contains(c.x) && ys.contains(c.y)
            }
        }
    }

    func testWatermarkIsDrawnOverThePipInset() throws {
        try daemon.openPlaying(try OutputFixtures.solidClip(.black))
        let inset = FrameRect(x: 0, y: 0, width: 0.5, height: 0.5)
        var (status, body) = try daemon.send("POST", "/v1/pip", ["uri": try OutputFixtures.solidClip(.red).path, "rect": inset.json])
        XCTAssertEqual(status, 200, "\(body)")
        (status, body) = try daemon.send("PUT", "/v1/overlays/watermark",
                                         ["image": try OutputFixtures.solidPNG(.green).path, "position": "top-left", "size": 0.2])
        XCTAssertEqual(status, 200, "\(body)")
        // The watermark covers the inset's top-left corner; the inset shows around it.
        try daemon.waitForFrame("a green square on the red inset", width: Self.readWidth, height: Self.readHeight) { frame in
            frame.count(in: FrameRect(x: 0, y: 0, width: 0.25, height: 0.3), where: \.isGreen) >= 600
                && frame.mostly(\.isRed, in: FrameRect(x: 0.3, y: 0.3, width: 0.15, height: 0.15), share: 0.95)
                && frame.fraction(outside: inset.outset(0.05), where: \.isBlack) > 0.98
        }
    }

    func testEachPutReplacesTheWholeWatermark() throws {
        var (status, body) = try daemon.send("PUT", "/v1/overlays/watermark",
                                             ["text": "LIVE", "position": "top-left", "size": 0.2, "color": "#ff000080"])
        XCTAssertEqual(status, 200, "\(body)")
        XCTAssertEqual((body["watermark"] as? [String: Any])?["color"] as? String, "#FF000080", "colours come back upper case: \(body)")
        (status, body) = try daemon.send("PUT", "/v1/overlays/watermark", ["text": "NEXT"])
        XCTAssertEqual(status, 200, "\(body)")
        let watermark = try XCTUnwrap(try daemon.snapshot()["watermark"] as? [String: Any])
        XCTAssertEqual(watermark["text"] as? String, "NEXT")
        XCTAssertEqual(watermark["position"] as? String, "bottom-right", "fields not given take their defaults: \(watermark)")
        XCTAssertEqual(watermark["size"] as? Double ?? 0, 0.05, accuracy: 1e-9, "\(watermark)")
        XCTAssertEqual(watermark["color"] as? String, "#FFFFFFB3", "\(watermark)")
        XCTAssertEqual(watermark["interval"] as? Double ?? 0, 10, accuracy: 1e-9, "\(watermark)")
    }

    func testRandomPositionJumps() throws {
        let png = try OutputFixtures.solidPNG(.green)
        try daemon.openPlaying(try OutputFixtures.solidClip(.black))
        let (status, body) = try daemon.send("PUT", "/v1/overlays/watermark",
                                             ["image": png.path, "position": "random", "interval": 1, "size": 0.15])
        XCTAssertEqual(status, 200, "\(body)")
        XCTAssertEqual((body["watermark"] as? [String: Any])?["position"] as? String, "random", "\(body)")
        XCTAssertEqual((body["watermark"] as? [String: Any])?["interval"] as? Double ?? 0, 1, accuracy: 1e-9, "\(body)")
        try daemon.waitForFrame("the watermark somewhere", width: Self.readWidth, height: Self.readHeight) {
            $0.count(where: \.isGreen) > 300
        }
        var places: [(x: Double, y: Double)] = []
        for _ in 0..<5 {
            let (_, pixels, text) = try daemon.frame(width: Self.readWidth, height: Self.readHeight)
            let frame = try XCTUnwrap(pixels, "snapshot.jpg: \(text)")
            // A snapshot taken as the watermark jumps still shows it once, in one place.
            if frame.count(where: \.isGreen) > 300, let c = frame.centroid(where: \.isGreen) { places.append(c) }
            usleep(1_500_000)
        }
        XCTAssertGreaterThanOrEqual(places.count, 4, "the watermark stays visible while it jumps: \(places)")
        var distinct: [(x: Double, y: Double)] = []
        for p in places where !distinct.contains(where: { abs($0.x - p.x) < 0.05 && abs($0.y - p.y) < 0.05 }) {
            distinct.append(p)
        }
        XCTAssertGreaterThanOrEqual(distinct.count, 2, "with interval 1 the watermark moves between snapshots 1.5 s apart: \(places)")
        for p in places {
            XCTAssertTrue((0...1).contains(p.x) && (0...1).contains(p.y), "\(p)")
        }
    }

    func testDeleteRemovesItWithEvents() throws {
        let png = try OutputFixtures.solidPNG(.green)
        try daemon.openPlaying(try OutputFixtures.solidClip(.black))
        let ws = WebSocketClient(baseURL: daemon.url)
        try ws.connect()
        defer { ws.close() }
        var (status, body) = try daemon.send("PUT", "/v1/overlays/watermark", ["image": png.path, "position": "center", "size": 0.2])
        XCTAssertEqual(status, 200, "\(body)")
        try daemon.waitForFrame("the green square", width: Self.readWidth, height: Self.readHeight) { $0.count(where: \.isGreen) > 600 }

        (status, body) = try daemon.send("DELETE", "/v1/overlays/watermark")
        XCTAssertEqual(status, 200, "\(body)")
        XCTAssertTrue(body["watermark"] is NSNull, "DELETE answers watermark null: \(body)")
        try daemon.waitForFrame("all black again", width: Self.readWidth, height: Self.readHeight) {
            $0.count(where: \.isGreenish) == 0 && $0.fraction(where: \.isBlack) > 0.99
        }
        XCTAssertTrue(try daemon.snapshot()["watermark"] is NSNull)

        let events = try collectEvents(ws, timeout: 5) { events in
            events.contains { $0["type"] as? String == "watermark" && $0["data"] is NSNull }
        }
        let marks = events.filter { $0["type"] as? String == "watermark" }.map { $0["data"] }
        XCTAssertEqual(marks.count, 2, "one event for PUT, one for DELETE: \(marks)")
        XCTAssertEqual((marks.first as? [String: Any])?["position"] as? String, "center", "\(marks)")
        XCTAssertTrue(marks.last is NSNull, "\(marks)")
    }

    func testSetWhileIdleStaysAcrossOpens() throws {
        let png = try OutputFixtures.solidPNG(.green)
        let (status, body) = try daemon.send("PUT", "/v1/overlays/watermark", ["image": png.path, "position": "top-left", "size": 0.2])
        XCTAssertEqual(status, 200, "a watermark can be set while idle: \(body)")
        XCTAssertEqual(body.state, "idle")
        XCTAssertEqual((try daemon.snapshot()["watermark"] as? [String: Any])?["position"] as? String, "top-left")
        let r = try daemon.client.get("/v1/snapshot.jpg")
        XCTAssertEqual(r.status, 503, "a watermark alone is no video: \(r.text.prefix(200))")

        let black = try OutputFixtures.solidClip(.black)
        try daemon.openPlaying(black)
        try daemon.waitForFrame("the watermark on the first open", width: Self.readWidth, height: Self.readHeight) {
            Self.onlyIn("top-left", $0, minimum: 600, where: \.isGreen)
        }
        XCTAssertEqual(try daemon.post("/v1/player/stop").0, 200)
        try daemon.openPlaying(try OutputFixtures.solidClip(.red))
        try daemon.waitForFrame("the watermark still there on the next open", width: Self.readWidth, height: Self.readHeight) {
            $0.count(in: Self.quadrants["top-left"]!, where: \.isGreen) >= 600
                && $0.fraction(in: Self.quadrants["bottom-right"]!, where: \.isRed) > 0.95
        }
        XCTAssertEqual((try daemon.snapshot()["watermark"] as? [String: Any])?["position"] as? String, "top-left")
    }

    func testInvalidWatermarksAre400() throws {
        let png = try OutputFixtures.solidPNG(.green).path
        let bad: [[String: Any]] = [
            ["position": "top-left"],                                        // neither text nor image
            ["text": "A", "image": png, "position": "top-left"],             // both
            ["text": "", "position": "top-left"],                            // empty text
            ["text": "A", "position": "middle"],                             // unknown position
            ["text": "A", "position": "top-left", "size": 0.6],              // too big
            ["text": "A", "position": "top-left", "size": 0.001],            // too small
            ["text": "A", "position": "top-left", "size": "big"],            // not a number
            ["text": "A", "position": "top-left", "color": "red"],           // not #RRGGBBAA
            ["text": "A", "position": "top-left", "color": "#GG0000FF"],     // not hex
            ["text": "A", "position": "random", "interval": 0.1],            // too fast
            ["text": "A", "position": "random", "interval": 4000],           // too slow
            ["text": "A", "position": "top-left", "font": "Sans"],           // unknown field
        ]
        for request in bad {
            let (status, body) = try daemon.send("PUT", "/v1/overlays/watermark", request)
            XCTAssertEqual(status, 400, "\(request): \(body)")
            XCTAssertEqual(body.errorCode, "invalid_argument", "\(request): \(body)")
        }
        let r = try daemon.client.request("PUT", "/v1/overlays/watermark", body: Data("{nope".utf8),
                                          headers: ["Content-Type": "application/json"])
        XCTAssertEqual(r.status, 400, r.text)

        let missing = MediaFixtures.directory.appendingPathComponent("no-such-logo-\(UUID().uuidString).png").path
        var (status, body) = try daemon.send("PUT", "/v1/overlays/watermark", ["image": missing, "position": "top-left"])
        XCTAssertEqual(status, 404, "an image that does not exist: \(body)")
        XCTAssertEqual(body.errorCode, "not_found", "\(body)")
        (status, body) = try daemon.send("PUT", "/v1/overlays/watermark", ["image": try MediaFixtures.garbage().path, "position": "top-left"])
        XCTAssertEqual(status, 400, "a file that is not a PNG: \(body)")
        XCTAssertEqual(body.errorCode, "invalid_argument", "\(body)")
        XCTAssertTrue(try daemon.snapshot()["watermark"] is NSNull, "no refused request leaves a watermark")
        (status, body) = try daemon.send("DELETE", "/v1/overlays/watermark")
        XCTAssertEqual(status, 200, "DELETE without a watermark is no error: \(body)")
    }
}
