import Foundation
import MarqueeClient
import TestMedia
import XCTest

/// Media whose decoder is not installed fails with `missing_plugin` naming it (not a vague
/// media error), and the daemon plays the next thing. The decoder is "uninstalled" by
/// ranking every Theora decoder at 0, which keeps autoplugging from ever choosing them.
final class MissingPluginTests: XCTestCase {
    func testMissingDecoderIsNamedAndTheNextOpenWorks() throws {
        let clip = FileManager.default.temporaryDirectory.appendingPathComponent("marquee-theora-\(UUID().uuidString).ogv")
        defer { try? FileManager.default.removeItem(at: clip) }
        let made = try runProcess("gst-launch-1.0", ["-q", "videotestsrc", "num-buffers=30", "!", "video/x-raw,width=160,height=120",
                                                     "!", "theoraenc", "!", "oggmux", "!", "filesink", "location=\(clip.path)"], timeout: 60)
        XCTAssertEqual(made.status, 0, made.stderr)

        let daemon = try Daemon(environment: ["GST_PLUGIN_FEATURE_RANK": "theoradec:0,avdec_theora:0"])
        defer { XCTAssertEqual(daemon.stop(), 0) }
        // Not `?wait=playing`: playbin3 may reach PLAYING with nothing linked a moment before
        // the demuxer's not-linked error arrives.
        let (status, _) = try daemon.post("/v1/player/open", ["uri": clip.path])
        XCTAssertEqual(status, 200)
        let snapshot = try daemon.waitFor("the open fails", timeout: 10) { $0.state == "error" }
        let error = snapshot["error"] as? [String: Any]
        XCTAssertEqual(error?["code"] as? String, "missing_plugin", "\(snapshot)")
        XCTAssertTrue((error?["message"] as? String ?? "").contains("Theora decoder"), "\(error ?? [:])")

        // The picture-in-picture says the same of its own source, and the main video is untouched.
        let good = try MediaFixtures.mp4(seconds: 4)
        let (playStatus, playing) = try daemon.post("/v1/player/open?wait=playing", ["uri": good.path])
        XCTAssertEqual(playStatus, 200, "\(playing)")
        XCTAssertEqual(playing.state, "playing")
        _ = try daemon.post("/v1/pip", ["uri": clip.path])
        let pip = try daemon.waitFor("the inset fails", timeout: 10) { ($0["pip"] as? [String: Any])?["state"] as? String == "error" }
        XCTAssertEqual(((pip["pip"] as? [String: Any])?["error"] as? [String: Any])?["code"] as? String, "missing_plugin")
        XCTAssertEqual(pip.state, "playing")
    }
}
