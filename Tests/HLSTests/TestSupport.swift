import Foundation
import XCTest
@testable import HLS

/// Builds playlist text from lines (joined with "\n").
func playlist(_ lines: String...) -> String { lines.joined(separator: "\n") }

func parseMaster(_ text: String, url: String? = "https://cdn.example.com/live/master.m3u8",
                 file: StaticString = #filePath, line: UInt = #line) throws -> MasterPlaylist {
    let parsed = try Playlist.parse(text, url: url.flatMap(URL.init(string:)))
    guard case let .master(m) = parsed else {
        XCTFail("expected a master playlist", file: file, line: line)
        throw PlaylistError(line: 0, reason: .missingHeader)
    }
    return m
}

func parseMedia(_ text: String, url: String? = "https://cdn.example.com/live/index.m3u8",
                importing: [String: String] = [:],
                file: StaticString = #filePath, line: UInt = #line) throws -> MediaPlaylist {
    let parsed = try Playlist.parse(text, url: url.flatMap(URL.init(string:)), importing: importing)
    guard case let .media(m) = parsed else {
        XCTFail("expected a media playlist", file: file, line: line)
        throw PlaylistError(line: 0, reason: .missingHeader)
    }
    return m
}

/// Asserts that parsing throws a PlaylistError and returns it.
@discardableResult
func assertPlaylistError(_ text: String, url: URL? = nil, importing: [String: String] = [:],
                         file: StaticString = #filePath, line: UInt = #line) -> PlaylistError? {
    do {
        _ = try Playlist.parse(text, url: url, importing: importing)
        XCTFail("expected a PlaylistError", file: file, line: line)
    } catch let error as PlaylistError {
        return error
    } catch {
        XCTFail("expected a PlaylistError, got \(error)", file: file, line: line)
    }
    return nil
}
