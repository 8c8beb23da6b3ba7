import ControlAPI
import Foundation
import HLS
import OfflineLibrary
import XCTest

/// Plans every playlist of the third-party HLS conformance corpus (`../shared/conformance/hls`
/// beside the repository, as `scripts/conformance` reads it) that Marquee's parser accepts, and
/// checks that each rewrite parses again and refers to exactly the planned files. Skipped when
/// the corpus is not there: it stays outside the repository.
final class HLSOfflineConformanceTests: XCTestCase {
    static let corpus = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // OfflineLibraryTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()  // the repository
        .deletingLastPathComponent()
        .appendingPathComponent("shared/conformance/hls", isDirectory: true)

    private func playlists() throws -> [(name: String, text: String)] {
        guard FileManager.default.fileExists(atPath: Self.corpus.path) else {
            throw XCTSkip("no conformance corpus at ../shared/conformance/hls")
        }
        let files = FileManager.default.enumerator(at: Self.corpus, includingPropertiesForKeys: nil)?
            .compactMap { $0 as? URL }.filter { $0.pathExtension == "m3u8" } ?? []
        return files.compactMap { file in
            guard let data = try? Data(contentsOf: file), let text = String(data: data, encoding: .utf8) else { return nil }
            let name = file.path.replacingOccurrences(of: Self.corpus.path + "/", with: "")
            return (name, text)
        }.sorted { $0.name < $1.name }
    }

    /// Live and event playlists are refused (`unsupported`), then planned once more as if
    /// they had ended (EXT-X-ENDLIST added), so the rewrite also meets their tags.
    func testEveryMediaPlaylistThePlayerReadsIsPlannedAndReparses() throws {
        var planned: [String] = []
        var declined: [String] = []
        var counts = (rejected: 0, masters: 0, iFramesOnly: 0, empty: 0, live: 0)
        for (name, original) in try playlists() {
            let url = "https://conformance.example.com/\(name)"
            guard let parsed = try? Playlist.parse(original, url: URL(string: url)) else { counts.rejected += 1; continue }
            guard case var .media(media) = parsed else { counts.masters += 1; continue }
            if media.iFramesOnly { counts.iFramesOnly += 1; continue }
            if media.segments.isEmpty { counts.empty += 1; continue }
            var text = original
            if media.isLive {
                counts.live += 1
                let refusal = hlsOfflineError { () throws(HLSOfflineError) in try HLSOfflineMedia.plan(playlist: original, url: url, folder: "v") }
                XCTAssertEqual(refusal?.code, "unsupported", name)
                text += "\n#EXT-X-ENDLIST\n"
                media.endList = true
            }
            let plan: HLSOfflineMedia
            do throws(HLSOfflineError) {
                plan = try HLSOfflineMedia.plan(playlist: text, url: url, folder: "v")
            } catch {
                XCTAssertEqual(error.code, "unsupported", "\(name): \(error)")
                declined.append("\(name) (\(error.message))")
                continue
            }
            assertWellFormed(plan, folder: "v")
            let copy = try reparseLocalMedia(plan.playlist, folder: "v")
            XCTAssertEqual(localReferences(copy, folder: "v"), Set(plan.files.map(\.name)), name)
            XCTAssertEqual(copy.segments.map(\.duration), media.segments.map(\.duration), name)
            XCTAssertEqual(copy.segments.map(\.byteRange), media.segments.map(\.byteRange), name)
            XCTAssertEqual(copy.segments.map(\.initializationVector), media.segments.map(\.initializationVector), name)
            XCTAssertEqual(copy.segments.map(\.discontinuity), media.segments.map(\.discontinuity), name)
            XCTAssertEqual(copy.segments.map(\.programDateTime), media.segments.map(\.programDateTime), name)
            XCTAssertEqual(copy.segments.map { $0.map?.byteRange }, media.segments.map { $0.map?.byteRange }, name)
            XCTAssertTrue(copy.endList, name)
            XCTAssertFalse(plan.playlist.contains("://"), "\(name) still points at the origin:\n\(plan.playlist)")
            planned.append(name)
        }
        print("hls offline media: \(planned.count) planned (\(counts.live) of them live or event, planned as ended), "
              + "\(declined.count) declined; not planned: \(counts.rejected) rejected by the parser, \(counts.masters) masters, "
              + "\(counts.iFramesOnly) I-frame only, \(counts.empty) without segments")
        for line in declined { print("  declined: \(line)") }
        XCTAssertGreaterThan(planned.count, 5)
    }

    func testEveryMasterThePlayerReadsGivesAPlayableMaster() throws {
        var chosen = 0
        for (name, text) in try playlists() {
            let url = "https://conformance.example.com/\(name)"
            guard case let .master(master)? = try? Playlist.parse(text, url: URL(string: url)), !master.variants.isEmpty else { continue }
            for (variant, audio, subtitles) in [(nil, nil, nil), (.lowest, .all, .all), (.maxHeight(480), .languages(["en"]), .languages(["en"]))]
                as [(LibraryVariantChoice?, LibraryRenditionChoice?, LibraryRenditionChoice?)] {
                do {
                    let selection = try HLSOfflineSelection.choose(playlist: text, url: url, variant: variant, audio: audio, subtitles: subtitles)
                    let copy = try reparseLocalMaster(selection.masterPlaylist)
                    XCTAssertEqual(copy.variants.count, 1, name)
                    var referenced = Set(copy.variants.map(\.uri))
                    referenced.formUnion(copy.renditions.compactMap(\.uri))
                    XCTAssertEqual(referenced, Set(selection.media.map(\.playlistName)), name)
                    XCTAssertEqual(Set(selection.media.map(\.folder)).count, selection.media.count, name)
                    XCTAssertFalse(selection.masterPlaylist.contains("://"), "\(name) still points at the origin:\n\(selection.masterPlaylist)")
                    chosen += 1
                } catch {
                    XCTFail("\(name): \(error)")
                }
            }
        }
        print("hls offline masters: \(chosen) selections")
        XCTAssertGreaterThan(chosen, 5)
    }
}
