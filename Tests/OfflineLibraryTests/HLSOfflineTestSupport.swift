import Foundation
import HLS
import OfflineLibrary
import XCTest

/// Where a kept item's playlists are served from in these tests: any loopback URL will do, as
/// every reference in a rewritten playlist is relative.
let hlsLocalRoot = "http://127.0.0.1:8089/library/lib-0123456789ab/"

/// Playlist text from lines, as an origin would send it.
func hlsText(_ lines: String...) -> String { lines.joined(separator: "\n") + "\n" }

/// Parses a rewritten media playlist as the player would read it from the loopback server.
func reparseLocalMedia(_ text: String, folder: String, file: StaticString = #filePath, line: UInt = #line) throws -> MediaPlaylist {
    let url = URL(string: hlsLocalRoot + folder + "/index.m3u8")
    guard case let .media(media) = try Playlist.parse(text, url: url) else {
        XCTFail("the rewritten playlist is not a media playlist:\n\(text)", file: file, line: line)
        throw HLSOfflineError(code: "test", message: "not a media playlist")
    }
    return media
}

func reparseLocalMaster(_ text: String, file: StaticString = #filePath, line: UInt = #line) throws -> MasterPlaylist {
    guard case let .master(master) = try Playlist.parse(text, url: URL(string: hlsLocalRoot + "master.m3u8")) else {
        XCTFail("the rewritten master is not a master playlist:\n\(text)", file: file, line: line)
        throw HLSOfflineError(code: "test", message: "not a master playlist")
    }
    return master
}

/// Every URI a media playlist refers to (segments, maps, keys), relative to the item folder.
func localReferences(_ media: MediaPlaylist, folder: String) -> Set<String> {
    var names: Set<String> = []
    for segment in media.segments {
        if !segment.gap { names.insert(folder + "/" + segment.uri) }
        if let map = segment.map { names.insert(folder + "/" + map.uri) }
        for key in segment.keys where key.method != .none { names.insert(folder + "/" + (key.uri ?? "")) }
    }
    return names
}

/// Checks the rules every plan keeps: names are safe, unique, under the folder; each URL once.
func assertWellFormed(_ plan: HLSOfflineMedia, folder: String, file: StaticString = #filePath, line: UInt = #line) {
    let names = plan.files.map(\.name)
    XCTAssertEqual(Set(names).count, names.count, "names are unique: \(names)", file: file, line: line)
    XCTAssertEqual(Set(plan.files.map(\.url)).count, plan.files.count, "each URL once", file: file, line: line)
    for name in names {
        XCTAssertTrue(name.hasPrefix(folder + "/"), name, file: file, line: line)
        XCTAssertFalse(name.contains(".."), name, file: file, line: line)
        XCTAssertFalse(name.contains("//"), name, file: file, line: line)
        XCTAssertTrue(name.unicodeScalars.allSatisfy { CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._/-").contains($0) },
                      "only [A-Za-z0-9._/-]: \(name)", file: file, line: line)
    }
    for url in plan.files.map(\.url) {
        XCTAssertTrue(url.hasPrefix("https://") || url.hasPrefix("http://"), url, file: file, line: line)
        XCTAssertFalse(url.contains("#"), url, file: file, line: line)
    }
}

/// The error a throwing planning call ends with.
func hlsOfflineError<T>(_ body: () throws(HLSOfflineError) -> T, file: StaticString = #filePath, line: UInt = #line) -> HLSOfflineError? {
    do {
        let value = try body()
        XCTFail("expected an HLSOfflineError, got \(value)", file: file, line: line)
        return nil
    } catch {
        return error
    }
}
