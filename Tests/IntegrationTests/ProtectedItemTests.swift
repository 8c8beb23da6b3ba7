import Foundation
import MarqueeClient
import TestMedia
import XCTest

/// Items that bring their own protection (API-2 §2): no snapshot while protected content
/// plays, and a watermark of their own (with the viewer's ids) that gives way to the
/// player's watermark when the item ends. Frames are read off `GET /v1/snapshot.jpg`.
final class ProtectedItemTests: XCTestCase {
    var daemon: Daemon!

    override func setUpWithError() throws { daemon = try Daemon() }
    override func tearDown() { XCTAssertEqual(daemon.stop(), 0) }

    static let readWidth = WatermarkTests.readWidth, readHeight = WatermarkTests.readHeight

    func testProtectedItemRefusesSnapshotsUntilAnUnprotectedOnePlays() throws {
        let clip = try OutputFixtures.solidClip(.black)
        let opened = try daemon.openPlaying(clip, ["protected": true, "contentId": "film-1"])
        XCTAssertEqual((opened["source"] as? [String: Any])?["protected"] as? Bool, true, "the reply says so: \(opened)")
        XCTAssertEqual((try daemon.snapshot()["source"] as? [String: Any])?["protected"] as? Bool, true)
        let refused = try daemon.client.get("/v1/snapshot.jpg")
        XCTAssertEqual(refused.status, 403, refused.text)
        XCTAssertEqual(((try refused.json() as? [String: Any])?["error"] as? [String: Any])?["code"] as? String, "protected_content")
        XCTAssertNotEqual(refused.headers["content-type"], "image/jpeg")

        // The next item is not protected: its frames may be taken again.
        let next = try daemon.openPlaying(clip, ["contentId": "trailer"])
        XCTAssertNil((next["source"] as? [String: Any])?["protected"], "\(next)")
        try daemon.waitForFrame("a snapshot of the unprotected item", width: 64, height: 36) { _ in true }
    }

    func testItemWatermarkNamesTheViewerThenGivesWayToThePlayersOwn() throws {
        let clip = try OutputFixtures.solidClip(.black)
        let png = try OutputFixtures.solidPNG(.green)
        // The player's own watermark: a green square at the top-left.
        var (status, body) = try daemon.send("PUT", "/v1/overlays/watermark", ["image": png.path, "position": "top-left", "size": 0.2])
        XCTAssertEqual(status, 200, "\(body)")

        // The item's: red text at the bottom-right, with the user's id in it.
        body = try daemon.openPlaying(clip, ["contentId": "film-7", "userId": "viewer-42",
                                             "watermark": ["text": "{userId} / {contentId}", "color": "#FF0000FF", "size": 0.1,
                                                           "position": "bottom-right"]])
        let shown = try XCTUnwrap(body["watermark"] as? [String: Any], "the reply shows the item's watermark: \(body)")
        XCTAssertEqual(shown["text"] as? String, "viewer-42 / film-7", "the ids are filled in")
        try daemon.waitForFrame("the item's red text at the bottom-right only, not the player's green square",
                                width: Self.readWidth, height: Self.readHeight) { frame in
            Self.atBottomRight(frame) && frame.count(where: \.isGreen) <= 2
        }
        // A longer id draws wider text: the pixels follow what the ids say.
        let short = try XCTUnwrap(try daemon.frame(width: Self.readWidth, height: Self.readHeight).pixels?.boundingBox(where: \.isReddish))

        // The item ends (a stop): the player's own watermark is back, in the snapshot too.
        (status, body) = try daemon.post("/v1/player/stop")
        XCTAssertEqual(status, 200)
        XCTAssertEqual((body["watermark"] as? [String: Any])?["position"] as? String, "top-left", "\(body)")
        try daemon.openPlaying(clip, ["contentId": "film-8", "userId": "viewer-1234567890"])
        try daemon.waitForFrame("the player's green square is back at the top-left, no red text",
                                width: Self.readWidth, height: Self.readHeight) { frame in
            WatermarkTests.onlyIn("top-left", frame, minimum: 600, where: \.isGreen) && frame.count(where: \.isReddish) <= 2
        }

        // And an item with a longer user id draws a wider watermark.
        try daemon.openPlaying(clip, ["contentId": "film-7", "userId": "viewer-1234567890",
                                      "watermark": ["text": "{userId} / {contentId}", "color": "#FF0000FF", "size": 0.1,
                                                    "position": "bottom-right"]])
        let long = try daemon.waitForFrame("the longer id's red text", width: Self.readWidth, height: Self.readHeight) { frame in
            (frame.boundingBox(where: \.isReddish)?.width ?? 0) > short.width + 0.05
        }
        XCTAssertNotNil(long)
    }

    /// A queue item's own watermark shows while that item plays, and goes with it: the next
    /// item (followed gaplessly, a plain file) shows none.
    func testQueueItemWatermarkLastsAsLongAsItsItem() throws {
        let first = try OutputFixtures.solidClip(.black, seconds: 3)
        let second = try OutputFixtures.solidClip(.black, seconds: 30)
        let (status, body) = try daemon.send("PUT", "/v1/queue", ["items": [
            ["uri": first.path, "contentId": "ad-1", "watermark": ["text": "AD {contentId}", "color": "#FF0000FF", "size": 0.1]],
            ["uri": second.path, "contentId": "film-2"],
        ]])
        XCTAssertEqual(status, 200, "\(body)")
        try daemon.waitForFrame("the first item's red text", width: Self.readWidth, height: Self.readHeight) { Self.atBottomRight($0) }
        _ = try daemon.waitFor("the second item plays", timeout: 10) {
            ($0["source"] as? [String: Any])?["contentId"] as? String == "film-2" && $0.state == "playing"
        }
        XCTAssertNil(try daemon.snapshot()["watermark"] as? [String: Any], "no watermark once the item ended")
        try daemon.waitForFrame("no red text on the second item", width: Self.readWidth, height: Self.readHeight) {
            $0.count(where: \.isReddish) <= 2
        }
    }

    /// Red text along the bottom, ending at the right edge (a long text reaches past the
    /// middle, so not a quadrant test).
    static func atBottomRight(_ frame: FramePixels) -> Bool {
        guard frame.count(where: \.isReddish) >= 60, let box = frame.boundingBox(where: \.isReddish) else { return false }
        return box.y > 0.75 && box.maxX > 0.85
    }

    func testAnItemWatermarkWithABadImageRefusesTheOpenAndLeavesPlaybackAlone() throws {
        let clip = try OutputFixtures.solidClip(.black)
        try daemon.openPlaying(clip, ["contentId": "first"])
        let notPNG = clip  // an MP4, not a PNG
        let (status, body) = try daemon.post("/v1/player/open", ["uri": clip.path, "watermark": ["image": notPNG.path]])
        XCTAssertEqual(status, 400, "\(body)")
        XCTAssertEqual((body["error"] as? [String: Any])?["code"] as? String, "invalid_argument")
        let now = try daemon.snapshot()
        XCTAssertEqual(now.state, "playing")
        XCTAssertEqual((now["source"] as? [String: Any])?["contentId"] as? String, "first", "the open changed nothing")
    }
}
