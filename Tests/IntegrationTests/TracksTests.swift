import Foundation
import MarqueeClient
import TestMedia
import XCTest

/// Embedded audio and subtitle tracks of a Matroska file.
final class TracksTests: XCTestCase {
    func testListAndSelectTracks() throws {
        let daemon = try Daemon()
        defer { XCTAssertEqual(daemon.stop(), 0) }
        let clip = try MediaFixtures.mkvWithTracks()
        let (status, _) = try daemon.post("/v1/player/open?wait=playing", ["uri": clip.path])
        XCTAssertEqual(status, 200)
        var s = try daemon.waitFor("two audio tracks") { (($0["tracks"] as? [String: Any])?["audio"] as? [Any])?.count == 2 }
        var tracks = try XCTUnwrap(s["tracks"] as? [String: [[String: Any]]])
        XCTAssertEqual(tracks["audio"]?.compactMap { $0["language"] as? String }.sorted(), ["en", "fr"])
        XCTAssertEqual(tracks["subtitle"]?.count, 1)
        XCTAssertEqual(tracks["video"]?.count, 1)
        let french = try XCTUnwrap(tracks["audio"]?.first { $0["language"] as? String == "fr" }?["id"] as? String)
        XCTAssertEqual(tracks["audio"]?.first { $0["language"] as? String == "en" }?["selected"] as? Bool, true)

        var r = try daemon.client.post("/v1/player/tracks/audio", json: ["id": french])
        XCTAssertEqual(r.status, 200, r.text)
        s = try daemon.waitFor("French selected", timeout: 5) { snap in
            let audio = ((snap["tracks"] as? [String: Any])?["audio"] as? [[String: Any]]) ?? []
            return audio.contains { $0["id"] as? String == french && $0["selected"] as? Bool == true }
        }
        tracks = try XCTUnwrap(s["tracks"] as? [String: [[String: Any]]])
        XCTAssertEqual(tracks["audio"]?.filter { $0["selected"] as? Bool == true }.count, 1)

        r = try daemon.client.post("/v1/player/tracks/subtitle", json: ["id": NSNull()])
        XCTAssertEqual(r.status, 200, r.text)
        _ = try daemon.waitFor("subtitles off", timeout: 5) { snap in
            let subs = ((snap["tracks"] as? [String: Any])?["subtitle"] as? [[String: Any]]) ?? []
            return subs.count == 1 && subs.allSatisfy { $0["selected"] as? Bool == false }
        }
        XCTAssertEqual(try daemon.snapshot().state, "playing", "switching tracks must not stop playback")

        r = try daemon.client.post("/v1/player/tracks/audio", json: ["id": "audio-9"])
        XCTAssertEqual(r.status, 404)
        XCTAssertEqual((try r.json() as? [String: Any])?.errorCode, "unknown_track")
    }
}
