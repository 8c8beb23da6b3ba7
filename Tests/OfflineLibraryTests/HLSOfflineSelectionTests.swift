import ControlAPI
import Foundation
import HLS
import OfflineLibrary
import XCTest

/// Choosing what of an HLS item to keep, and the master playlist that refers to the copies.
final class HLSOfflineSelectionTests: XCTestCase {
    static let masterURL = "https://cdn.example.com/films/42/master.m3u8"

    /// Three variants listed out of bandwidth order (the player names them v1 = 360p, v2 = 720p,
    /// v3 = 1080p), two audio renditions, two subtitle renditions, closed captions, an I-frame
    /// playlist, and tags that must not survive into a copy.
    static let master = hlsText(
        "#EXTM3U",
        "#EXT-X-VERSION:6",
        "#EXT-X-INDEPENDENT-SEGMENTS",
        "#EXT-X-START:TIME-OFFSET=2.5,PRECISE=YES",
        "#EXT-X-SESSION-DATA:DATA-ID=\"com.example.title\",VALUE=\"Big Film\",LANGUAGE=\"en\"",
        "#EXT-X-SESSION-DATA:DATA-ID=\"com.example.extra\",URI=\"extra.json\"",
        "#EXT-X-SESSION-KEY:METHOD=AES-128,URI=\"https://keys.example.com/session\"",
        "#EXT-X-CONTENT-STEERING:SERVER-URI=\"https://steer.example.com/s.json\"",
        "#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"aac\",NAME=\"English\",LANGUAGE=\"en-US\",DEFAULT=YES,AUTOSELECT=YES,CHANNELS=\"2\",URI=\"audio/en/index.m3u8\"",
        "#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"aac\",NAME=\"Français\",LANGUAGE=\"fr\",DEFAULT=NO,AUTOSELECT=YES,CHANNELS=\"2\",URI=\"audio/fr/index.m3u8?token=abc\"",
        "#EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID=\"subs\",NAME=\"English\",LANGUAGE=\"en\",DEFAULT=NO,AUTOSELECT=YES,FORCED=NO,URI=\"subs/en/index.m3u8\"",
        "#EXT-X-MEDIA:TYPE=SUBTITLES,GROUP-ID=\"subs\",NAME=\"Deutsch\",LANGUAGE=\"de\",AUTOSELECT=YES,URI=\"https://subs.example.net/42/de/index.m3u8\"",
        "#EXT-X-MEDIA:TYPE=CLOSED-CAPTIONS,GROUP-ID=\"cc\",NAME=\"CC1\",LANGUAGE=\"en\",INSTREAM-ID=\"CC1\"",
        "#EXT-X-STREAM-INF:BANDWIDTH=2400000,AVERAGE-BANDWIDTH=2000000,CODECS=\"avc1.4d401f,mp4a.40.2\",RESOLUTION=1280x720,FRAME-RATE=29.970,AUDIO=\"aac\",SUBTITLES=\"subs\",CLOSED-CAPTIONS=\"cc\"",
        "video/720p/index.m3u8",
        "#EXT-X-STREAM-INF:BANDWIDTH=800000,CODECS=\"avc1.42e01e,mp4a.40.2\",RESOLUTION=640x360,AUDIO=\"aac\",SUBTITLES=\"subs\",CLOSED-CAPTIONS=\"cc\"",
        "video/360p/index.m3u8",
        "#EXT-X-STREAM-INF:BANDWIDTH=6000000,CODECS=\"avc1.640028,mp4a.40.2\",RESOLUTION=1920x1080,FRAME-RATE=29.970,HDCP-LEVEL=TYPE-0,AUDIO=\"aac\",SUBTITLES=\"subs\",CLOSED-CAPTIONS=\"cc\",X-VENDOR-HINT=\"a,b\"",
        "https://cdn2.example.com/films/42/1080p/index.m3u8?sig=xyz",
        "#EXT-X-I-FRAME-STREAM-INF:BANDWIDTH=150000,RESOLUTION=640x360,CODECS=\"avc1.42e01e\",URI=\"video/360p/iframes.m3u8\""
    )

    static let variantURLs = [
        "v1": "https://cdn.example.com/films/42/video/360p/index.m3u8",
        "v2": "https://cdn.example.com/films/42/video/720p/index.m3u8",
        "v3": "https://cdn2.example.com/films/42/1080p/index.m3u8?sig=xyz",
    ]
    static let englishAudio = HLSOfflineMediaRef(url: "https://cdn.example.com/films/42/audio/en/index.m3u8", folder: "a-en-us", role: .audio)
    static let frenchAudio = HLSOfflineMediaRef(url: "https://cdn.example.com/films/42/audio/fr/index.m3u8?token=abc", folder: "a-fr", role: .audio)
    static let englishSubtitles = HLSOfflineMediaRef(url: "https://cdn.example.com/films/42/subs/en/index.m3u8", folder: "s-en", role: .subtitles)
    static let germanSubtitles = HLSOfflineMediaRef(url: "https://subs.example.net/42/de/index.m3u8", folder: "s-de", role: .subtitles)

    private func choose(_ text: String = master, url: String = masterURL, variant: LibraryVariantChoice? = nil,
                        audio: LibraryRenditionChoice? = nil, subtitles: LibraryRenditionChoice? = nil) throws -> HLSOfflineSelection {
        try HLSOfflineSelection.choose(playlist: text, url: url, variant: variant, audio: audio, subtitles: subtitles)
    }

    /// Checks the master refers to exactly the media playlists planned (plus renditions muxed
    /// into the variant, which have no URI), and returns it parsed.
    @discardableResult
    private func assertMasterMatches(_ selection: HLSOfflineSelection, file: StaticString = #filePath, line: UInt = #line) throws -> MasterPlaylist {
        let master = try reparseLocalMaster(selection.masterPlaylist, file: file, line: line)
        XCTAssertEqual(master.variants.count, 1, file: file, line: line)
        XCTAssertEqual(master.iFrameVariants, [], file: file, line: line)
        XCTAssertEqual(master.sessionKeys, [], file: file, line: line)
        var referenced = Set(master.variants.map(\.uri))
        referenced.formUnion(master.renditions.compactMap(\.uri))
        XCTAssertEqual(referenced, Set(selection.media.map(\.playlistName)), file: file, line: line)
        XCTAssertEqual(master.variants.first?.uri, "v/index.m3u8", file: file, line: line)
        XCTAssertEqual(selection.media.first?.role, .video, file: file, line: line)
        XCTAssertEqual(selection.media.first?.folder, "v", file: file, line: line)
        for uri in referenced { XCTAssertFalse(uri.contains("..") || uri.contains(":") || uri.contains("?"), uri, file: file, line: line) }
        XCTAssertFalse(selection.masterPlaylist.contains("://"), "nothing points at the origin:\n\(selection.masterPlaylist)", file: file, line: line)
        return master
    }

    // MARK: - Variants

    func testDefaultKeepsTheHighestVariantTheDefaultAudioAndNoSubtitles() throws {
        let selection = try choose()
        XCTAssertEqual(selection.variantID, "v3")
        XCTAssertEqual(selection.media, [HLSOfflineMediaRef(url: Self.variantURLs["v3"]!, folder: "v", role: .video), Self.englishAudio])
        let master = try assertMasterMatches(selection)
        let variant = try XCTUnwrap(master.variants.first)
        // The variant keeps the attributes the origin gave it.
        XCTAssertEqual(variant.bandwidth, 6_000_000)
        XCTAssertEqual(variant.codecs, "avc1.640028,mp4a.40.2")
        XCTAssertEqual(variant.resolution, Resolution(width: 1920, height: 1080))
        XCTAssertEqual(variant.frameRate, 29.97)
        XCTAssertEqual(variant.hdcpLevel, "TYPE-0")
        XCTAssertEqual(variant.attributes["X-VENDOR-HINT"], "a,b")
        XCTAssertEqual(variant.audio, "aac")
        XCTAssertEqual(variant.closedCaptions, .group("cc"))
        XCTAssertNil(variant.subtitles, "no subtitles kept, so no SUBTITLES group to name")
        XCTAssertEqual(master.renditions.map(\.name), ["English", "CC1"])
        let english = master.renditions[0]
        XCTAssertEqual(english.uri, "a-en-us/index.m3u8")
        XCTAssertEqual(english.language, "en-US")
        XCTAssertTrue(english.isDefault)
        XCTAssertTrue(english.autoselect)
        XCTAssertEqual(english.channels, "2")
        XCTAssertEqual(master.renditions[1].type, .closedCaptions)
        XCTAssertEqual(master.renditions[1].instreamID, "CC1")
        XCTAssertNil(master.renditions[1].uri)
        // Kept from the master: version, independent segments, start, session data with a value.
        XCTAssertEqual(master.version, 6)
        XCTAssertTrue(master.independentSegments)
        XCTAssertEqual(master.start, StartOffset(timeOffset: 2.5, precise: true))
        XCTAssertEqual(master.sessionData, [SessionData(dataID: "com.example.title", value: "Big Film", language: "en")])
        XCTAssertFalse(selection.masterPlaylist.contains("CONTENT-STEERING"))
        XCTAssertEqual(selection, try choose(variant: .highest), "nil is highest")
    }

    func testHighestLowestAndIDsAreThePlayersNames() throws {
        XCTAssertEqual(try choose(variant: .highest).variantID, "v3")
        let lowest = try choose(variant: .lowest)
        XCTAssertEqual(lowest.variantID, "v1")
        XCTAssertEqual(lowest.media.first?.url, Self.variantURLs["v1"])
        for id in ["v1", "v2", "v3"] {
            let selection = try choose(variant: .id(id))
            XCTAssertEqual(selection.variantID, id)
            XCTAssertEqual(selection.media.first?.url, Self.variantURLs[id])
            try assertMasterMatches(selection)
        }
        let v2 = try reparseLocalMaster(try choose(variant: .id("v2")).masterPlaylist)
        XCTAssertEqual(v2.variants.first?.bandwidth, 2_400_000)
        XCTAssertEqual(v2.variants.first?.averageBandwidth, 2_000_000)
    }

    func testUnknownIDListsTheLadder() {
        let error = hlsOfflineError { () throws(HLSOfflineError) in try HLSOfflineSelection.choose(
            playlist: Self.master, url: Self.masterURL, variant: .id("v9"), audio: nil, subtitles: nil) }
        XCTAssertEqual(error?.code, "unknown_variant")
        XCTAssertEqual(error?.message, "no variant 'v9'; the ladder is v1, v2, v3")
    }

    func testMaxHeightKeepsTheHighestThatFitsElseTheLowest() throws {
        let cases: [(Int, String)] = [(1080, "v3"), (5000, "v3"), (1079, "v2"), (720, "v2"), (719, "v1"), (360, "v1"), (100, "v1"), (1, "v1")]
        for (height, id) in cases {
            let selection = try choose(variant: .maxHeight(height))
            XCTAssertEqual(selection.variantID, id, "maxHeight \(height)")
            XCTAssertEqual(selection.media.first?.url, Self.variantURLs[id], "maxHeight \(height)")
        }
    }

    func testEqualBandwidthsKeepPlaylistOrderAsThePlayerDoes() throws {
        let text = hlsText(
            "#EXTM3U",
            "#EXT-X-STREAM-INF:BANDWIDTH=1000000,RESOLUTION=640x360",
            "first.m3u8",
            "#EXT-X-STREAM-INF:BANDWIDTH=1000000,RESOLUTION=640x360",
            "second.m3u8")
        XCTAssertEqual(try choose(text).media.first?.url, "https://cdn.example.com/films/42/second.m3u8")
        XCTAssertEqual(try choose(text).variantID, "v2")
        XCTAssertEqual(try choose(text, variant: .lowest).media.first?.url, "https://cdn.example.com/films/42/first.m3u8")
        XCTAssertEqual(try choose(text, variant: .id("v1")).media.first?.url, "https://cdn.example.com/films/42/first.m3u8")
    }

    /// RFC 8216 s8.4's ladder ends with an audio-only variant, lowest of all.
    func testAudioOnlyVariantsArePassedOverUnlessNamed() throws {
        let text = hlsText(
            "#EXTM3U",
            "#EXT-X-STREAM-INF:BANDWIDTH=1280000,AVERAGE-BANDWIDTH=1000000",
            "http://example.com/low.m3u8",
            "#EXT-X-STREAM-INF:BANDWIDTH=7680000,AVERAGE-BANDWIDTH=6000000",
            "http://example.com/hi.m3u8",
            "#EXT-X-STREAM-INF:BANDWIDTH=65000,CODECS=\"mp4a.40.5\"",
            "http://example.com/audio-only.m3u8")
        XCTAssertEqual(try choose(text, variant: .lowest).media.first?.url, "http://example.com/low.m3u8")
        XCTAssertEqual(try choose(text, variant: .lowest).variantID, "v2")
        XCTAssertEqual(try choose(text, variant: .maxHeight(480)).media.first?.url, "http://example.com/low.m3u8")
        XCTAssertEqual(try choose(text, variant: .id("v1")).media.first?.url, "http://example.com/audio-only.m3u8")
        let audioOnly = hlsText("#EXTM3U", "#EXT-X-STREAM-INF:BANDWIDTH=65000,CODECS=\"mp4a.40.5\"", "a.m3u8",
                                "#EXT-X-STREAM-INF:BANDWIDTH=128000,CODECS=\"mp4a.40.2\"", "b.m3u8")
        XCTAssertEqual(try choose(audioOnly, variant: .lowest).variantID, "v1", "an audio-only ladder is still a ladder")
    }

    func testIFramePlaylistsAreNeverChosen() throws {
        let text = hlsText(
            "#EXTM3U",
            "#EXT-X-I-FRAME-STREAM-INF:BANDWIDTH=9000000,RESOLUTION=1920x1080,URI=\"iframes-hi.m3u8\"",
            "#EXT-X-STREAM-INF:BANDWIDTH=1000000,RESOLUTION=640x360",
            "main.m3u8",
            "#EXT-X-I-FRAME-STREAM-INF:BANDWIDTH=100,RESOLUTION=320x180,URI=\"iframes-lo.m3u8\"")
        for choice: LibraryVariantChoice in [.highest, .lowest, .maxHeight(2000), .maxHeight(200)] {
            let selection = try choose(text, variant: choice)
            XCTAssertEqual(selection.media.map(\.url), ["https://cdn.example.com/films/42/main.m3u8"])
            XCTAssertEqual(selection.variantID, "v1")
        }
        let onlyIFrames = hlsText("#EXTM3U", "#EXT-X-I-FRAME-STREAM-INF:BANDWIDTH=100,URI=\"iframes.m3u8\"")
        let error = hlsOfflineError { () throws(HLSOfflineError) in try HLSOfflineSelection.choose(
            playlist: onlyIFrames, url: Self.masterURL, variant: nil, audio: nil, subtitles: nil) }
        XCTAssertEqual(error?.code, "invalid_source")
        XCTAssertTrue(error?.message.contains("I-frame") == true, error?.message ?? "")
    }

    // MARK: - Audio

    func testAudioChoices() throws {
        XCTAssertEqual(try choose(audio: .all).media.dropFirst(), [Self.englishAudio, Self.frenchAudio])
        XCTAssertEqual(try choose(audio: .languages(["fr"])).media.dropFirst(), [Self.frenchAudio])
        XCTAssertEqual(try choose(audio: .languages(["en"])).media.dropFirst(), [Self.englishAudio], "en matches en-US")
        XCTAssertEqual(try choose(audio: .languages(["EN_us"])).media.dropFirst(), [Self.englishAudio])
        XCTAssertEqual(try choose(audio: .languages(["fr-CA"])).media.dropFirst(), [Self.frenchAudio], "fr-CA asks for French")
        XCTAssertEqual(try choose(audio: .languages(["fr", "en"])).media.dropFirst(), [Self.englishAudio, Self.frenchAudio], "playlist order")
        XCTAssertEqual(try choose(audio: .languages(["es"])).media.dropFirst(), [Self.englishAudio], "none matches: the default")
        XCTAssertEqual(try choose(audio: .languages([])).media.dropFirst(), [Self.englishAudio])
        XCTAssertEqual(try choose(audio: .languages(["e"])).media.dropFirst(), [Self.englishAudio], "only whole subtags match: the default")

        let french = try choose(audio: .languages(["fr"]))
        let master = try assertMasterMatches(french)
        XCTAssertEqual(master.renditions.filter { $0.type == .audio }.map(\.uri), ["a-fr/index.m3u8"])
        XCTAssertEqual(master.variants.first?.audio, "aac")
        let both = try assertMasterMatches(try choose(audio: .all))
        XCTAssertEqual(both.renditions.filter { $0.type == .audio }.map(\.name), ["English", "Français"])
    }

    func testAudioWithoutDefaultTakesTheFirstAndDuplicateLanguagesGetNumberedFolders() throws {
        let text = hlsText(
            "#EXTM3U",
            "#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"a\",NAME=\"Stereo\",LANGUAGE=\"en\",URI=\"en-stereo.m3u8\"",
            "#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"a\",NAME=\"Surround\",LANGUAGE=\"en\",URI=\"en-51.m3u8\"",
            "#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"a\",NAME=\"Commentary\",URI=\"commentary.m3u8\"",
            "#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"a\",NAME=\"Same file\",LANGUAGE=\"en\",URI=\"en-stereo.m3u8\"",
            "#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"other\",NAME=\"Other group\",LANGUAGE=\"en\",URI=\"other.m3u8\"",
            "#EXT-X-STREAM-INF:BANDWIDTH=1000000,RESOLUTION=640x360,AUDIO=\"a\"",
            "video.m3u8")
        XCTAssertEqual(try choose(text).media.dropFirst().map(\.folder), ["a-en"], "no DEFAULT=YES: the first")
        let all = try choose(text, audio: .all)
        XCTAssertEqual(all.media.dropFirst().map(\.folder), ["a-en", "a-en-2", "a-und"])
        XCTAssertEqual(all.media.dropFirst().map(\.url), ["https://cdn.example.com/films/42/en-stereo.m3u8",
                                                         "https://cdn.example.com/films/42/en-51.m3u8",
                                                         "https://cdn.example.com/films/42/commentary.m3u8"])
        let master = try assertMasterMatches(all)
        XCTAssertEqual(master.renditions.map(\.name), ["Stereo", "Surround", "Commentary", "Same file"], "only the variant's group")
        XCTAssertEqual(master.renditions.map(\.uri), ["a-en/index.m3u8", "a-en-2/index.m3u8", "a-und/index.m3u8", "a-en/index.m3u8"],
                       "one playlist fetched once, whoever refers to it")
    }

    func testMuxedAudioRenditionsNeedNoFile() throws {
        let text = hlsText(
            "#EXTM3U",
            "#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"a\",NAME=\"Main\",LANGUAGE=\"en\",DEFAULT=YES",
            "#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"a\",NAME=\"Spanish\",LANGUAGE=\"es\",URI=\"es.m3u8\"",
            "#EXT-X-STREAM-INF:BANDWIDTH=1000000,RESOLUTION=640x360,AUDIO=\"a\"",
            "video.m3u8")
        let selection = try choose(text)
        XCTAssertEqual(selection.media.map(\.folder), ["v"])
        let master = try assertMasterMatches(selection)
        XCTAssertEqual(master.renditions.map(\.name), ["Main"])
        XCTAssertNil(master.renditions.first?.uri)
        XCTAssertEqual(master.variants.first?.audio, "a")
        let all = try choose(text, audio: .all)
        XCTAssertEqual(all.media.map(\.folder), ["v", "a-es"])
        XCTAssertEqual(try assertMasterMatches(all).renditions.map(\.uri), [nil, "a-es/index.m3u8"])
    }

    // MARK: - Subtitles

    func testSubtitlesAreOptIn() throws {
        XCTAssertEqual(try choose().media.filter { $0.role == .subtitles }, [])
        let all = try choose(subtitles: .all)
        XCTAssertEqual(all.media, [HLSOfflineMediaRef(url: Self.variantURLs["v3"]!, folder: "v", role: .video), Self.englishAudio,
                                   Self.englishSubtitles, Self.germanSubtitles], "video, audio, then subtitles")
        let master = try assertMasterMatches(all)
        XCTAssertEqual(master.variants.first?.subtitles, "subs")
        XCTAssertEqual(master.renditions.filter { $0.type == .subtitles }.map(\.uri), ["s-en/index.m3u8", "s-de/index.m3u8"])
        XCTAssertEqual(master.renditions.filter { $0.type == .subtitles }.map(\.forced), [false, false])

        XCTAssertEqual(try choose(subtitles: .languages(["de"])).media.last, Self.germanSubtitles)
        let none = try choose(subtitles: .languages(["it"]))
        XCTAssertEqual(none.media.filter { $0.role == .subtitles }, [], "subtitles are optional: nothing matches, nothing kept")
        XCTAssertNil(try assertMasterMatches(none).variants.first?.subtitles)
    }

    // MARK: - Other master shapes

    func testAMediaPlaylistURLIsOneVariant() throws {
        let text = hlsText("#EXTM3U", "#EXT-X-TARGETDURATION:6", "#EXTINF:6,", "a.ts", "#EXT-X-ENDLIST")
        let url = "https://cdn.example.com/films/42/index.m3u8?sig=1"
        for choice: LibraryVariantChoice? in [nil, .highest, .lowest, .maxHeight(240), .id("v1")] {
            let selection = try choose(text, url: url, variant: choice, audio: .all, subtitles: .all)
            XCTAssertEqual(selection.media, [HLSOfflineMediaRef(url: url, folder: "v", role: .video)])
            XCTAssertEqual(selection.variantID, "v1")
            try assertMasterMatches(selection)
        }
        let error = hlsOfflineError { () throws(HLSOfflineError) in try HLSOfflineSelection.choose(
            playlist: text, url: url, variant: .id("v2"), audio: nil, subtitles: nil) }
        XCTAssertEqual(error?.code, "unknown_variant")
        let live = hlsText("#EXTM3U", "#EXT-X-TARGETDURATION:6", "#EXTINF:6,", "a.ts")
        let liveError = hlsOfflineError { () throws(HLSOfflineError) in try HLSOfflineSelection.choose(
            playlist: live, url: url, variant: nil, audio: nil, subtitles: nil) }
        XCTAssertEqual(liveError?.code, "unsupported")
        XCTAssertTrue(liveError?.message.hasPrefix("only VOD can be kept") == true, liveError?.message ?? "")
    }

    /// VIDEO renditions (other camera angles) are not kept: the variant's own stream is the picture.
    func testVideoRenditionsAreDropped() throws {
        let text = hlsText(
            "#EXTM3U",
            "#EXT-X-MEDIA:TYPE=VIDEO,GROUP-ID=\"low\",NAME=\"Main\",DEFAULT=YES,URI=\"low/main/audio-video.m3u8\"",
            "#EXT-X-MEDIA:TYPE=VIDEO,GROUP-ID=\"low\",NAME=\"Dugout\",DEFAULT=NO,URI=\"low/dugout/audio-video.m3u8\"",
            "#EXT-X-STREAM-INF:BANDWIDTH=1280000,CODECS=\"avc1.42e01e,mp4a.40.2\",VIDEO=\"low\"",
            "low/main/audio-video.m3u8")
        let selection = try choose(text)
        XCTAssertEqual(selection.media.map(\.url), ["https://cdn.example.com/films/42/low/main/audio-video.m3u8"])
        let master = try assertMasterMatches(selection)
        XCTAssertEqual(master.renditions, [])
        XCTAssertNil(master.variants.first?.video)
    }

    func testClosedCaptionsNoneStaysTheEnumeratedNone() throws {
        let text = hlsText("#EXTM3U", "#EXT-X-STREAM-INF:BANDWIDTH=1000000,CLOSED-CAPTIONS=NONE", "v.m3u8")
        let master = try assertMasterMatches(try choose(text))
        XCTAssertEqual(master.variants.first?.closedCaptions, VariantStream.ClosedCaptions.none)
    }

    func testVariablesAreWrittenSubstituted() throws {
        let text = hlsText(
            "#EXTM3U",
            "#EXT-X-DEFINE:NAME=\"cdn\",VALUE=\"https://media.example.org/42\"",
            "#EXT-X-DEFINE:QUERYPARAM=\"token\"",
            "#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"a\",NAME=\"{$cdn} audio\",LANGUAGE=\"en\",URI=\"{$cdn}/en.m3u8?t={$token}\"",
            "#EXT-X-STREAM-INF:BANDWIDTH=1000000,RESOLUTION=640x360,AUDIO=\"a\"",
            "{$cdn}/video.m3u8?t={$token}")
        let selection = try choose(text, url: "https://cdn.example.com/films/42/master.m3u8?token=T1")
        XCTAssertEqual(selection.media.map(\.url), ["https://media.example.org/42/video.m3u8?t=T1", "https://media.example.org/42/en.m3u8?t=T1"])
        XCTAssertEqual(selection.definitions, ["cdn": "https://media.example.org/42", "token": "T1"])
        XCTAssertFalse(selection.masterPlaylist.contains("{$"))
        XCTAssertFalse(selection.masterPlaylist.contains("EXT-X-DEFINE"))
        let master = try reparseLocalMaster(selection.masterPlaylist)
        XCTAssertEqual(master.renditions.first?.name, "https://media.example.org/42 audio")
    }

    /// RFC 8216 s8.6: the audio-only variant is the English rendition's own playlist.
    func testAVariantThatIsAlsoARenditionIsFetchedOnce() throws {
        let text = hlsText(
            "#EXTM3U",
            "#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"aac\",NAME=\"English\",DEFAULT=YES,AUTOSELECT=YES,LANGUAGE=\"en\",URI=\"main/english-audio.m3u8\"",
            "#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"aac\",NAME=\"Deutsch\",DEFAULT=NO,AUTOSELECT=YES,LANGUAGE=\"de\",URI=\"main/german-audio.m3u8\"",
            "#EXT-X-STREAM-INF:BANDWIDTH=1280000,CODECS=\"...\",AUDIO=\"aac\"",
            "low/video-only.m3u8",
            "#EXT-X-STREAM-INF:BANDWIDTH=65000,CODECS=\"mp4a.40.5\",AUDIO=\"aac\"",
            "main/english-audio.m3u8")
        let selection = try choose(text, variant: .id("v1"), audio: .all)
        XCTAssertEqual(selection.media.map(\.folder), ["v", "a-de"])
        let master = try assertMasterMatches(selection)
        XCTAssertEqual(master.renditions.map(\.uri), ["v/index.m3u8", "a-de/index.m3u8"])
    }

    // MARK: - Errors

    func testSourceErrors() {
        func error(_ text: String, url: String = Self.masterURL) -> HLSOfflineError? {
            hlsOfflineError { () throws(HLSOfflineError) in try HLSOfflineSelection.choose(
                playlist: text, url: url, variant: nil, audio: nil, subtitles: nil) }
        }
        XCTAssertEqual(error("<html>not found</html>")?.code, "invalid_source")
        XCTAssertTrue(error("<html>")?.message.contains("line 1") == true)
        XCTAssertEqual(error("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1\n")?.code, "invalid_source", "a STREAM-INF without its URI")
        XCTAssertEqual(error(Self.master, url: "films/42/master.m3u8")?.code, "invalid_source", "not absolute")
        XCTAssertEqual(error(Self.master, url: "file:///films/42/master.m3u8")?.code, "unsupported")
        XCTAssertEqual(error(hlsText("#EXTM3U", "#EXT-X-STREAM-INF:BANDWIDTH=1", "data:application/x-mpegurl,abc"))?.code, "unsupported")
    }
}
