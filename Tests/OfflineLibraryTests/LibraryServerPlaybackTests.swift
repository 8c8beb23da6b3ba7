import Foundation
import OfflineLibrary
import TestMedia
import XCTest

/// GStreamer plays what `LibraryServer` serves: playbin3 in a gst-launch-1.0 child process,
/// reading over loopback HTTP as the daemon's pipeline will.
final class LibraryServerPlaybackTests: XCTestCase {
    private static let server = try! LibraryServer()
    private var server: LibraryServer { Self.server }

    private func play(_ uri: String) throws -> (status: Int32, stderr: String) {
        let run = try runProcess("gst-launch-1.0", ["-q", "playbin3", "uri=\(uri)", "video-sink=fakesink", "audio-sink=fakesink"],
                                 timeout: 60)
        return (run.status, run.stderr)
    }

    /// An MP4 whose index (moov) is at its end, as mp4mux writes it: qtdemux reads the start,
    /// meets the media data, asks for the index with a Range request at the end, then comes
    /// back for the samples with another. Played to its end (fakesink does not sync: as fast
    /// as it decodes) with exit 0.
    func testPlaybin3PlaysAnMP4WhoseIndexIsAtTheEnd() throws {
        let folder = serverTestFolder("marquee-library-server-playback")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("media.mp4").path
        try makeMP4(path)
        let media = RecordingMedia(try PlainMedia(path: path))
        let (token, baseURL) = try server.publish(["media": ServedFile(media: media, contentType: "video/mp4")])
        let started = Date()
        let run = try play("\(baseURL)/lib/\(token)/media")
        XCTAssertEqual(run.status, 0, run.stderr)
        let starts = media.requestStarts
        print("[LibraryServer] playbin3 played a \(media.size)-byte MP4 in \(String(format: "%.2f", Date().timeIntervalSince(started))) s; "
              + "requests started at \(starts)")
        XCTAssertEqual(starts.first, 0)
        XCTAssertTrue(starts.contains { $0 > media.size / 2 }, "qtdemux read the index at the end with a Range request")
        XCTAssertGreaterThanOrEqual(starts.count, 3, "and came back for the samples with another")
        XCTAssertTrue(pollUntil(within: 5) { server.bodiesInFlight == 0 })
        server.unpublish(token)
    }

    /// 5 s of 1280x720 H.264 noise at 8 Mb/s, about 5 MB: large enough that qtdemux seeks to
    /// the index (with a 0.2 MB file it reads the whole file in one request instead).
    private func makeMP4(_ path: String) throws {
        guard try runProcess("gst-inspect-1.0", ["x264enc"], timeout: 30).status == 0 else {
            throw XCTSkip("x264enc is not installed (gstreamer1.0-plugins-ugly)")
        }
        let run = try runProcess("gst-launch-1.0", [
            "-q", "videotestsrc", "num-buffers=150", "pattern=snow", "!", "video/x-raw,width=1280,height=720,framerate=30/1",
            "!", "x264enc", "bitrate=8000", "speed-preset=ultrafast", "key-int-max=30", "!", "mp4mux", "!", "filesink", "location=\(path)",
        ], timeout: 120)
        XCTAssertEqual(run.status, 0, run.stderr)
    }

    /// An AES-128 HLS set: master and media playlists, a key and segments under nested names,
    /// all through the server, and read from it: hlsdemux2 fetches the key from it too.
    func testPlaybin3PlaysAnHLSSetWithItsKey() throws {
        let hls = try HLSFixtures.encrypted(seconds: 3)
        var read: [String: RecordingMedia] = [:]
        var files: [String: ServedFile] = [:]
        for name in [hls.masterPath, hls.mediaPath, hls.keyPath] + hls.segmentPaths {
            let type = name.hasSuffix(".m3u8") ? "application/vnd.apple.mpegurl"
                : name.hasSuffix(".ts") ? "video/mp2t" : "application/octet-stream"
            read[name] = RecordingMedia(try PlainMedia(path: hls.directory.appendingPathComponent(name).path))
            files[name] = ServedFile(media: read[name]!, contentType: type)
        }
        let (token, _) = try server.publish(files)
        let run = try play(server.url(token: token, name: hls.masterPath))
        XCTAssertEqual(run.status, 0, run.stderr)
        for (name, media) in read {
            XCTAssertFalse(media.requestStarts.isEmpty, "\(name) was read through the server")
        }
        print("[LibraryServer] playbin3 played an AES-128 HLS set of \(files.count) files (\(hls.segmentPaths.count) segments)")
        server.unpublish(token)
    }
}
