import Foundation
import XCTest
import ControlAPI

final class EventEncodingTests: XCTestCase {
    struct Row {
        var event: PlayerEvent
        var type: String
        var data: String
        var latestValue: Bool
        var line: UInt
        init(_ event: PlayerEvent, _ type: String, _ data: String, latestValue: Bool, line: UInt = #line) {
            self.event = event
            self.type = type
            self.data = data
            self.latestValue = latestValue
            self.line = line
        }
    }

    static let rows: [Row] = [
        Row(.state(StateChange(state: .playing, previous: .opening)), "state",
            #"{"state": "playing", "previous": "opening"}"#, latestValue: false),
        Row(.position(PositionUpdate(position: 3.5, duration: 60)), "position",
            #"{"position": 3.5, "duration": 60}"#, latestValue: true),
        Row(.position(PositionUpdate(position: 0, duration: nil)), "position",
            #"{"position": 0, "duration": null}"#, latestValue: true),
        Row(.buffering(BufferingUpdate(percent: 42)), "buffering", #"{"percent": 42}"#, latestValue: true),
        Row(.tracks(Tracks(audio: [Track(id: "audio-1", language: "en", codec: "AAC", selected: true),
                                   Track(id: "audio-2", title: "Commentary", selected: false)],
                           subtitle: [Track(id: "subtitle-1", language: "de", selected: false)])), "tracks",
            #"{"audio": [{"id": "audio-1", "language": "en", "codec": "AAC", "selected": true},"#
            + #" {"id": "audio-2", "title": "Commentary", "selected": false}],"#
            + #" "video": [], "subtitle": [{"id": "subtitle-1", "language": "de", "selected": false}]}"#,
            latestValue: true),
        Row(.seek(SeekUpdate(position: 12.5, exact: false)), "seek", #"{"position": 12.5, "exact": false}"#, latestValue: false),
        Row(.settings(settingsUpdate { $0.rate = 1.5; $0.volume = 0.5; $0.muted = true; $0.audioDelay = -0.1; $0.repeat = .one }), "settings",
            withSettingDefaults(##"{"rate": 1.5, "volume": 0.5, "muted": true, "audioDelay": -0.1, "repeat": "one","##
            + ##" "subtitleStyle": {"fontSize": 0.05, "color": "#FFFFFFFF", "align": "bottom"}, "abLoop": null}"##), latestValue: true),
        Row(.settings(settingsUpdate { $0.subtitleStyle = styled }), "settings",
            withSettingDefaults(##"{"rate": 1, "volume": 1, "muted": false, "audioDelay": 0, "repeat": "none","##
            + ##" "subtitleStyle": {"fontSize": 0.08, "color": "#FFFF0080", "align": "top"}, "abLoop": null}"##), latestValue: true),
        Row(.settings(SettingsUpdate(abLoop: ABLoop(a: 10, b: 20.5))), "settings",
            withSettingDefaults(##"{"rate": 1, "volume": 1, "muted": false, "audioDelay": 0, "repeat": "none","##
            + ##" "subtitleStyle": {"fontSize": 0.05, "color": "#FFFFFFFF", "align": "bottom"}, "abLoop": {"a": 10, "b": 20.5}}"##),
            latestValue: true),
        Row(.source(SourceInfo(uri: "https://cdn.example/live/master.m3u8", kind: .hls, live: true, contentId: "c1")), "source",
            #"{"uri": "https://cdn.example/live/master.m3u8", "kind": "hls", "live": true, "contentId": "c1"}"#, latestValue: false),
        Row(.source(nil), "source", "null", latestValue: false),
        Row(.error(APIError(.mediaError, "could not demux")), "error",
            #"{"code": "media_error", "message": "could not demux"}"#, latestValue: false),
        Row(.eos, "eos", "{}", latestValue: false),
        // The output stage: all latest-value; null when the thing is gone.
        Row(.pip(PipInfo(uri: "file:///media/b.mp4", state: .playing, rect: .defaultInset, muted: true, swapped: false)), "pip",
            #"{"uri": "file:///media/b.mp4", "state": "playing", "rect": {"x": 0.65, "y": 0.65, "width": 0.3, "height": 0.3},"#
            + #" "muted": true, "swapped": false, "error": null}"#, latestValue: true),
        Row(.pip(PipInfo(uri: "udp://239.1.1.2:5000", state: .error, rect: Rect(x: 0, y: 0, width: 0.5, height: 0.5), muted: false,
                         swapped: true, error: APIError(.networkError, "no data"))), "pip",
            #"{"uri": "udp://239.1.1.2:5000", "state": "error", "rect": {"x": 0, "y": 0, "width": 0.5, "height": 0.5},"#
            + #" "muted": false, "swapped": true, "error": {"code": "network_error", "message": "no data"}}"#, latestValue: true),
        Row(.pip(nil), "pip", "null", latestValue: true),
        Row(.watermark(WatermarkRequest(text: "LIVE")), "watermark",
            ##"{"text": "LIVE", "size": 0.05, "color": "#FFFFFFB3", "position": "bottom-right", "interval": 10, "opacity": 1}"##,
            latestValue: true),
        Row(.watermark(WatermarkRequest(image: "/srv/logo.png", size: 0.1, position: .random, interval: 30, opacity: 0.5)), "watermark",
            ##"{"image": "/srv/logo.png", "size": 0.1, "color": "#FFFFFFB3", "position": "random", "interval": 30, "opacity": 0.5}"##,
            latestValue: true),
        Row(.watermark(nil), "watermark", "null", latestValue: true),
        Row(.cue(Cue(text: "Hello\nworld & $$x^2$$", start: 12.5, end: 15)), "cue",
            #"{"text": "Hello\nworld & $$x^2$$", "start": 12.5, "end": 15}"#, latestValue: true),
        Row(.cue(nil), "cue", "null", latestValue: true),
        // The queue: latest-value; null once it is cleared or ended by an outside open.
        Row(.queue(QueueInfo(items: [QueueInfo.Item(uri: "/media/a.mp4", contentId: "c-1"), QueueInfo.Item(uri: "/media/b.mp4", contentId: nil)],
                             index: 1, loop: true)), "queue",
            #"{"items": [{"uri": "/media/a.mp4", "contentId": "c-1"}, {"uri": "/media/b.mp4"}], "index": 1, "loop": true}"#,
            latestValue: true),
        Row(.queue(QueueInfo(items: [QueueInfo.Item(uri: "https://cdn.example/a.m3u8", contentId: nil)], index: nil, loop: false)), "queue",
            #"{"items": [{"uri": "https://cdn.example/a.m3u8"}], "index": null, "loop": false}"#, latestValue: true),
        Row(.queue(nil), "queue", "null", latestValue: true),
        // Analytics delivery outcomes: every one counts, none replaces another.
        Row(.analytics(AnalyticsUpdate(seq: 7, event: .begin, outcome: .sent, reason: nil, pending: 0)), "analytics",
            #"{"seq": 7, "event": "begin", "outcome": "sent", "pending": 0}"#, latestValue: false),
        Row(.analytics(AnalyticsUpdate(seq: 8, event: .playing, outcome: .retrying, reason: "HTTP 503", pending: 3)), "analytics",
            #"{"seq": 8, "event": "playing", "outcome": "retrying", "reason": "HTTP 503", "pending": 3}"#, latestValue: false),
        Row(.analytics(AnalyticsUpdate(seq: 9, event: .end, outcome: .failed, reason: "HTTP 400", pending: 2)), "analytics",
            #"{"seq": 9, "event": "end", "outcome": "failed", "reason": "HTTP 400", "pending": 2}"#, latestValue: false),
    ]

    static var styled: SubtitleStyle {
        var style = SubtitleStyle()
        style.merge(SubtitleStylePatch(fontSize: 0.08, color: RGBAColor(red: 255, green: 255, blue: 0, alpha: 0x80), align: .top))
        return style
    }

    func testEnvelopeRows() {
        for (index, row) in Self.rows.enumerated() {
            let data = JSONCoding.encode(EventEnvelope(seq: index + 1, event: row.event))
            XCTAssertEqual(row.event.type, row.type, line: row.line)
            XCTAssertEqual(row.event.isLatestValue, row.latestValue, row.type, line: row.line)
            XCTAssertEqual(jsonKeys(data, line: row.line), ["seq", "type", "data"], line: row.line)
            assertJSONEqual(data, #"{"seq": \#(index + 1), "type": "\#(row.type)", "data": \#(row.data)}"#, line: row.line)
        }
    }

    func testSnapshotEvent() {
        let data = JSONCoding.encode(EventEnvelope(seq: 1, event: .snapshot(PlayerSnapshot())))
        XCTAssertTrue(String(decoding: data, as: UTF8.self).hasPrefix(#"{"data":{"#), "sorted keys: data, seq, type")
        guard let object = jsonObject(data) as? [String: Any] else { return XCTFail("not an object") }
        XCTAssertEqual(object["seq"] as? Int, 1)
        XCTAssertEqual(object["type"] as? String, "snapshot")
        XCTAssertEqual((object["data"] as? [String: Any]).map { Set($0.keys) }, SnapshotEncodingTests.contractKeys.union(PlayerSettings.wireNames))
        XCTAssertFalse(PlayerEvent.snapshot(PlayerSnapshot()).isLatestValue)
    }

    func testLiveEventCarriesSeekable() {
        let live = LiveInfo(edge: 30, behind: 4, window: 20, seekable: TimeRange(start: 7, end: 27))
        assertJSONEqual(JSONCoding.encode(EventEnvelope(seq: 5, event: .live(live))),
                        #"{"seq": 5, "type": "live", "data": {"edge": 30, "behind": 4, "window": 20, "seekable": {"start": 7, "end": 27}}}"#)
        // The snapshot's `live` leaves it out: the snapshot has its own `seekable`.
        assertJSONEqual(JSONCoding.encode(LiveInfo(edge: 30, behind: 4, window: 20)), #"{"edge": 30, "behind": 4, "window": 20}"#)
    }

    func testSlashesAreNotEscaped() {
        let text = encodedText(EventEnvelope(seq: 9, event: .source(SourceInfo(uri: "file:///media/a/b.mp4", kind: .file))))
        XCTAssertTrue(text.contains(#""uri":"file:///media/a/b.mp4""#), text)
        XCTAssertFalse(text.contains(#"\/"#), text)
    }

    func testEncodingIsCompactAndSorted() {
        XCTAssertEqual(encodedText(EventEnvelope(seq: 3, event: .buffering(BufferingUpdate(percent: 100)))),
                       #"{"data":{"percent":100},"seq":3,"type":"buffering"}"#)
        XCTAssertEqual(encodedText(EventEnvelope(seq: 4, event: .eos)), #"{"data":{},"seq":4,"type":"eos"}"#)
    }
}

final class SnapshotEncodingTests: XCTestCase {
    static let contractKeys: Set<String> = [
        "state", "source", "position", "duration", "rate", "volume", "muted", "audioDelay", "buffering",
        "seekable", "live", "tracks", "variants", "variant", "repeat", "abLoop", "pip", "watermark", "subtitleStyle", "cue", "queue",
        "error",
    ]

    func testIdleSnapshotHasEveryKeyWithExplicitNulls() {
        let data = JSONCoding.encode(PlayerSnapshot())
        XCTAssertEqual(jsonKeys(data), Self.contractKeys.union(PlayerSettings.wireNames), "the contract's keys and every setting")
        let text = String(decoding: data, as: UTF8.self)
        for key in ["source", "position", "duration", "seekable", "live", "abLoop", "pip", "watermark", "cue", "queue", "error"] {
            XCTAssertTrue(text.contains(#""\#(key)":null"#), "\(key) must be an explicit null: \(text)")
        }
        assertJSONEqual(data, withSettingDefaults("""
            {"state": "idle", "source": null, "position": null, "duration": null,
             "rate": 1, "volume": 1, "muted": false, "audioDelay": 0, "buffering": 100,
             "seekable": null, "live": null,
             "tracks": {"audio": [], "video": [], "subtitle": []},
             "variants": [], "variant": {"mode": "auto", "selected": null, "current": null},
             "repeat": "none", "abLoop": null, "pip": null, "watermark": null,
             "subtitleStyle": {"fontSize": 0.05, "color": "#FFFFFFFF", "align": "bottom"}, "cue": null, "queue": null, "error": null}
            """))
    }

    static let full = """
        {"state": "playing",
         "source": {"uri": "https://cdn.example/live/master.m3u8", "kind": "live", "live": true, "contentId": "ch-1"},
         "position": 12.5, "duration": 3600, "rate": 1.5, "volume": 0.8, "muted": true, "audioDelay": -0.2,
         "buffering": 87, "seekable": {"start": 0, "end": 3600},
         "live": {"edge": 3600, "behind": 4, "window": 300},
         "tracks": {"audio": [{"id": "audio-1", "language": "en", "selected": true}],
                    "video": [{"id": "video-1", "codec": "H.264", "selected": true}],
                    "subtitle": [{"id": "subtitle-1", "title": "English", "selected": false}]},
         "variants": [{"id": "720p", "bandwidth": 3000000, "width": 1280, "height": 720, "codecs": "avc1.64001f"}],
         "variant": {"mode": "manual", "selected": "720p", "current": "720p"},
         "repeat": "all", "abLoop": {"a": 10, "b": 20},
         "pip": {"uri": "file:///media/pip.mp4", "state": "playing", "rect": {"x": 0.05, "y": 0.05, "width": 0.25, "height": 0.25},
                 "muted": false, "swapped": true, "error": null},
         "watermark": {"text": "LIVE", "size": 0.04, "color": "#FF000080", "position": "top-right", "interval": 10, "opacity": 1},
         "subtitleStyle": {"fontSize": 0.07, "color": "#FFFF00FF", "align": "top"},
         "cue": {"text": "Bonjour", "start": 11, "end": 13.5},
         "queue": {"items": [{"uri": "https://cdn.example/live/master.m3u8", "contentId": "ch-1"}, {"uri": "file:///media/next.mp4"}],
                   "index": 0, "loop": false},
         "error": {"code": "network_error", "message": "timed out"}}
        """

    func testFullSnapshotRoundTrips() throws {
        let snapshot = decoded(PlayerSnapshot.self, Self.full)
        XCTAssertEqual(snapshot.state, .playing)
        XCTAssertEqual(snapshot.source, SourceInfo(uri: "https://cdn.example/live/master.m3u8", kind: .live, contentId: "ch-1"))
        XCTAssertEqual(snapshot.error, APIError(.networkError, "timed out"))
        XCTAssertEqual(snapshot.pip, PipInfo(uri: "file:///media/pip.mp4", state: .playing, rect: Rect(x: 0.05, y: 0.05, width: 0.25, height: 0.25),
                                             muted: false, swapped: true))
        XCTAssertEqual(snapshot.watermark, WatermarkRequest(text: "LIVE", size: 0.04, color: RGBAColor(red: 255, green: 0, blue: 0, alpha: 0x80),
                                                            position: .topRight))
        XCTAssertEqual(snapshot.subtitleStyle.fontSize, 0.07)
        XCTAssertEqual(snapshot.subtitleStyle.align, .top)
        XCTAssertEqual(snapshot.cue, Cue(text: "Bonjour", start: 11, end: 13.5))
        XCTAssertEqual(snapshot.abLoop, ABLoop(a: 10, b: 20))
        XCTAssertEqual(snapshot.queue, QueueInfo(items: [QueueInfo.Item(uri: "https://cdn.example/live/master.m3u8", contentId: "ch-1"),
                                                         QueueInfo.Item(uri: "file:///media/next.mp4", contentId: nil)],
                                                 index: 0, loop: false))
        let data = JSONCoding.encode(snapshot)
        assertJSONEqual(data, withSettingDefaults(Self.full))
        XCTAssertEqual(try JSONDecoder().decode(PlayerSnapshot.self, from: data), snapshot)
        let text = String(decoding: data, as: UTF8.self)
        XCTAssertTrue(text.contains("https://cdn.example/live/master.m3u8"), text)
        XCTAssertTrue(text.contains("file:///media/pip.mp4"), text)
        XCTAssertFalse(text.contains(#"\/"#), text)
    }

    func testOutputStageNullsAreExplicit() {
        var snapshot = PlayerSnapshot()
        snapshot.pip = PipInfo(uri: "b.mp4", state: .opening, rect: .defaultInset, muted: true, swapped: false)
        let text = encodedText(snapshot)
        XCTAssertTrue(text.contains(#""pip":{"error":null,"#), "a PiP without an error says so: \(text)")
        XCTAssertTrue(text.contains(#""watermark":null"#), text)
        XCTAssertTrue(text.contains(#""cue":null"#), text)
        snapshot.pip = nil
        XCTAssertTrue(encodedText(snapshot).contains(#""pip":null"#))
        // A watermark names only the one of text and image it has.
        let keys = jsonKeys(JSONCoding.encode(WatermarkRequest(image: "/srv/logo.png")))
        XCTAssertEqual(keys, ["image", "size", "color", "position", "interval", "opacity"])
    }

    func testQueueInfoShape() {
        // GET /v1/queue without a queue: an empty one, its index an explicit null.
        XCTAssertEqual(encodedText(QueueInfo(items: [], index: nil, loop: false)), #"{"index":null,"items":[],"loop":false}"#)
        // An item names its contentId only when it has one.
        let info = QueueInfo(items: [QueueInfo.Item(uri: "/media/a b.mp4", contentId: nil), QueueInfo.Item(uri: "b.mp4", contentId: "c-2")],
                             index: 0, loop: true)
        XCTAssertEqual(encodedText(info), #"{"index":0,"items":[{"uri":"/media/a b.mp4"},{"contentId":"c-2","uri":"b.mp4"}],"loop":true}"#)
        XCTAssertEqual(try JSONDecoder().decode(QueueInfo.self, from: JSONCoding.encode(info)), info)
        var snapshot = PlayerSnapshot()
        snapshot.queue = info
        XCTAssertTrue(encodedText(snapshot).contains(#""queue":{"index":0,"#), encodedText(snapshot))
    }

    func testAnalyticsStatusShape() {
        // Without --analytics-url: no url, nothing pending; optional keys are left out.
        XCTAssertEqual(encodedText(AnalyticsStatus(enabled: false, url: nil, interval: 180, pending: 0, sent: 0, failed: 0, dropped: 0,
                                                   lastError: nil)),
                       #"{"dropped":0,"enabled":false,"failed":0,"interval":180,"pending":0,"sent":0}"#)
        let status = AnalyticsStatus(enabled: true, url: "http://127.0.0.1:9000/collect", interval: 30, pending: 4, sent: 10, failed: 1,
                                     dropped: 2, lastError: "connection refused")
        assertJSONEqual(JSONCoding.encode(status), """
            {"enabled": true, "url": "http://127.0.0.1:9000/collect", "interval": 30, "pending": 4, "sent": 10, "failed": 1,
             "dropped": 2, "lastError": "connection refused"}
            """)
        XCTAssertEqual(try JSONDecoder().decode(AnalyticsStatus.self, from: JSONCoding.encode(status)), status)
    }

    func testAnalyticsEventShape() {
        var event = AnalyticsEvent(event: .playing, time: "2026-11-30T14:00:00.000Z", contentId: "c-9", userId: "u-1",
                                   originalUrl: "https://portal.example/w/9", uri: "https://cdn.example/a.m3u8",
                                   position: 61.5, duration: 3600, watched: 181.5, rate: 1)
        event.seq = 42
        assertJSONEqual(JSONCoding.encode(event), """
            {"event": "playing", "seq": 42, "time": "2026-11-30T14:00:00.000Z", "contentId": "c-9", "userId": "u-1",
             "originalUrl": "https://portal.example/w/9", "uri": "https://cdn.example/a.m3u8", "position": 61.5, "duration": 3600,
             "watched": 181.5, "rate": 1}
            """)
        XCTAssertFalse(encodedText(event).contains(#"\/"#))
        let bare = AnalyticsEvent(event: .begin, time: "2026-11-30T14:00:00.000Z", contentId: nil, userId: nil, originalUrl: nil,
                                  uri: "demo://", position: nil, duration: nil, watched: 0, rate: 1)
        XCTAssertEqual(jsonKeys(JSONCoding.encode(bare)), ["event", "time", "uri", "watched", "rate"])
    }

    func testEveryStateEncodesAsItsContractName() {
        XCTAssertEqual(PlaybackState.allCases.map(\.rawValue), ["idle", "opening", "buffering", "paused", "playing", "ended", "error"])
        for state in PlaybackState.allCases {
            var snapshot = PlayerSnapshot()
            snapshot.state = state
            guard let object = jsonObject(JSONCoding.encode(snapshot)) as? [String: Any] else { return XCTFail() }
            XCTAssertEqual(object["state"] as? String, state.rawValue)
        }
    }

    func testErrorReplyShape() {
        XCTAssertEqual(encodedText(ErrorReply(APIError(.notFound, "no such file: /a/b.mp4"))),
                       #"{"error":{"code":"not_found","message":"no such file: /a/b.mp4"}}"#)
    }
}
