// libFuzzer target for the HLS playlist parser (Sources/HLS), built by scripts/fuzz with
// `swiftc -sanitize=fuzzer,address -parse-as-library` together with every file of
// Sources/HLS, so the parser's internal types are in this module.
//
// The input is read as UTF-8 text (lossy, so every byte string reaches the line splitter)
// and parsed against a base URL whose query feeds EXT-X-DEFINE:QUERYPARAM; a master playlist
// is parsed again as if it were a media playlist importing the master's definitions
// (EXT-X-DEFINE:IMPORT). The raw bytes also go through `Playlist.parse(data:url:)` without a
// URL (strict UTF-8, absolute-URI-only resolution). Every computed property of the result is
// read, so a trap anywhere in them counts.
import Foundation

private let baseURL = URL(string: "https://cdn.example.com/live/event/master.m3u8?token=abc123&lang=en&v=7")!
private let parentDefinitions = ["host": "cdn.example.com", "path": "live/event", "token": "abc123"]

private func touch(_ key: Key?) -> Int {
    guard let key else { return 0 }
    return key.method.description.utf8.count + (key.iv?.count ?? 0) + key.keyFormatVersions.count
        + (key.resolvedURL?.absoluteString.utf8.count ?? 0)
}

private func touch(_ variant: VariantStream) -> Int {
    var n = variant.codecList.count + (variant.audioCodec?.utf8.count ?? 0) + (variant.videoCodec?.utf8.count ?? 0)
    n += variant.resolution?.description.utf8.count ?? 0
    n += variant.resolvedURL?.absoluteString.utf8.count ?? 0
    if case let .group(name)? = variant.closedCaptions { n += name.utf8.count }
    return n + variant.attributes.count
}

private func touch(_ playlist: Playlist) -> Int {
    var n = 0
    switch playlist {
    case let .master(master):
        n += master.variants.reduce(0) { $0 + touch($1) }
        n += master.iFrameVariants.reduce(0) { $0 + touch($1) }
        for rendition in master.renditions {
            n += master.renditions(inGroup: rendition.groupID, type: rendition.type).count
            n += rendition.resolvedURL?.absoluteString.utf8.count ?? 0
        }
        n += master.sessionKeys.reduce(0) { $0 + touch($1) }
        n += master.sessionData.reduce(0) { $0 + ($1.resolvedURL?.absoluteString.utf8.count ?? 0) }
    case let .media(media):
        n += media.totalDuration.isFinite ? 1 : 0
        n += media.isLive ? 1 : 0
        n += media.sessionKeys.reduce(0) { $0 + touch($1) }
        for segment in media.segments {
            n += segment.initializationVector?.count ?? 0
            n += touch(segment.key) + segment.keys.reduce(0) { $0 + touch($1) }
            if let range = segment.byteRange { n += (range.end ?? 0) & 1 + range.description.utf8.count }
            if let map = segment.map { n += map.byteRange?.description.utf8.count ?? 0 }
            n += segment.programDateTime.map { Int($0.timeIntervalSince1970) & 1 } ?? 0
            n += segment.resolvedURL?.absoluteString.utf8.count ?? 0
        }
    }
    n += (playlist.master?.definitions.count ?? 0) + (playlist.media?.definitions.count ?? 0)
    return n
}

/// Runs one parse; a PlaylistError is the expected outcome of most inputs, anything else
/// thrown breaks the parser's contract ("throws PlaylistError; never traps").
private func parse(_ body: () throws -> Playlist) -> (Playlist?, Int) {
    do {
        let playlist = try body()
        return (playlist, touch(playlist))
    } catch let error as PlaylistError {
        return (nil, error.description.utf8.count)
    } catch {
        fatalError("Playlist.parse threw something other than PlaylistError: \(error)")
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    let text = String(decoding: bytes, as: UTF8.self)
    let (first, n) = parse { try Playlist.parse(text, url: baseURL) }
    var sink = n
    // The same text again as a media playlist under a parent: IMPORT sees the master's
    // definitions when it parsed as one, a fixed table otherwise.
    let imports = first?.master?.definitions ?? parentDefinitions
    sink &+= parse { try Playlist.parse(text, url: baseURL, importing: imports) }.1
    sink &+= parse { try Playlist.parse(data: Data(bytes), url: nil) }.1
    withExtendedLifetime(sink) {}
    return 0
}
