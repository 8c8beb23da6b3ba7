// marquee-conformance: runs Marquee's parsers against third-party conformance corpora.
//
//   marquee-conformance hls DIR         every <case>.m3u8 + <case>.expected.json under DIR
//   marquee-conformance subtitles [--verbose] DIR
//                                       DIR/webvtt, DIR/srt, DIR/sami (see SubtitlesConformance.swift)
//
// Prints one line per failing case (its name and the first field that differs) and ends with
// `hls: PASSED/TOTAL`. Exits 0 whatever the score; 2 when DIR is missing or the usage is wrong.
import Foundation
import HLS

// MARK: - Declined cases
//
// Cases whose expectation Marquee's parser deliberately does not meet. They still run and
// count as not passed; their failure line says DECLINED and why.
let declinedHLS: [String: String] = [
    // No #EXTM3U line: these are fragments from globocom/m3u8's unit tests, which feed single tag
    // lines to the parser. RFC 8216 s4.3.1.1 makes #EXTM3U the required first line and Marquee
    // enforces it (hls.js rejects such input too: see hlsjs/empty-manifest).
    "variant-playlist-with-iframe-stable-variant-id":
        "no #EXTM3U header (RFC 8216 s4.3.1.1 requires it)",
    "variant-playlist-with-stable-variant-id":
        "no #EXTM3U header (RFC 8216 s4.3.1.1 requires it)",
    // Also lacks GROUP-ID, REQUIRED on EXT-X-MEDIA (s4.3.4.1).
    "variant-playlist-with-stable-rendition-id":
        "no #EXTM3U header and no GROUP-ID (RFC 8216 s4.3.1.1, s4.3.4.1)",
    // IV=[IV] is a template placeholder, not a hexadecimal-sequence (s4.3.2.4). Marquee keeps the
    // IV as 16 bytes and rejects a key whose IV is not hex; the case expects the text kept as is.
    "playlist-with-tag-media-ready":
        "IV=[IV] is not a hexadecimal-sequence (RFC 8216 s4.3.2.4); Marquee rejects the EXT-X-KEY",
]

// MARK: - JSON

indirect enum JSON: Decodable, Equatable, CustomStringConvertible {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSON])
    case object([String: JSON])

    init(from decoder: Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() { self = .null }
        else if let b = try? c.decode(Bool.self) { self = .bool(b) }
        else if let n = try? c.decode(Double.self) { self = .number(n) }
        else if let s = try? c.decode(String.self) { self = .string(s) }
        else if let a = try? c.decode([JSON].self) { self = .array(a) }
        else { self = .object(try c.decode([String: JSON].self)) }
    }

    subscript(key: String) -> JSON? {
        if case let .object(o) = self { return o[key] }
        return nil
    }

    var string: String? {
        if case let .string(s) = self { return s }
        return nil
    }

    var description: String {
        switch self {
        case .null: return "null"
        case let .bool(b): return b ? "true" : "false"
        case let .number(n): return n == n.rounded() && abs(n) < 1e15 ? String(Int(n)) : String(n)
        case let .string(s): return "\"\(s)\""
        case let .array(a): return "[" + a.map(\.description).joined(separator: ",") + "]"
        case let .object(o): return "{" + o.keys.sorted().map { "\($0):\(o[$0] ?? .null)" }.joined(separator: ",") + "}"
        }
    }
}

func opt<T>(_ value: T?, _ wrap: (T) -> JSON) -> JSON { value.map(wrap) ?? .null }
func str(_ s: String?) -> JSON { opt(s, JSON.string) }
func int(_ n: Int?) -> JSON { opt(n) { .number(Double($0)) } }
func dbl(_ d: Double?) -> JSON { opt(d, JSON.number) }
func hex(_ bytes: [UInt8]) -> String { "0x" + bytes.map { String(format: "%02x", $0) }.joined() }

// MARK: - Parsed playlist as the corpus's JSON

func json(_ v: VariantStream) -> JSON {
    // `bandwidth` is 0 when the attribute is absent; the corpus says null then, and the raw
    // attributes tell the two apart.
    var o: [String: JSON] = [
        "uri": .string(v.uri), "resolved_url": str(v.resolvedURL?.absoluteString),
        "bandwidth": v.attributes["BANDWIDTH"] == nil ? .null : int(v.bandwidth), "average_bandwidth": int(v.averageBandwidth),
        "program_id": int(v.programID), "codecs": str(v.codecs), "supplemental_codecs": str(v.supplementalCodecs),
        "audio_codec": str(v.audioCodec), "video_codec": str(v.videoCodec),
        "resolution": str(v.resolution?.description), "width": int(v.resolution?.width), "height": int(v.resolution?.height),
        "frame_rate": dbl(v.frameRate), "hdcp_level": str(v.hdcpLevel), "video_range": str(v.videoRange),
        "audio": str(v.audio), "video": str(v.video), "subtitles": str(v.subtitles),
        "name": str(v.attributes["NAME"]),
    ]
    switch v.closedCaptions {
    case nil: o["closed_captions"] = .null
    case .some(.none): o["closed_captions"] = .string("NONE")
    case let .some(.group(g)): o["closed_captions"] = .string(g)
    }
    return .object(o)
}

func json(_ r: Rendition) -> JSON {
    .object([
        "type": .string(r.type.rawValue), "group_id": .string(r.groupID), "name": .string(r.name),
        "language": str(r.language), "assoc_language": str(r.assocLanguage),
        "default": .bool(r.isDefault), "autoselect": .bool(r.autoselect), "forced": .bool(r.forced),
        "instream_id": str(r.instreamID), "characteristics": str(r.characteristics), "channels": str(r.channels),
        "uri": str(r.uri), "resolved_url": str(r.resolvedURL?.absoluteString),
    ])
}

func json(_ k: Key, sequence: Int? = nil) -> JSON {
    var o: [String: JSON] = [
        "method": .string(k.method.description), "uri": str(k.uri),
        "iv": opt(k.iv) { .string(hex($0)) }, "iv_bytes": opt(k.iv) { .array($0.map { .number(Double($0)) }) },
        "keyformat": .string(k.keyFormat),
        "keyformatversions": .string(k.keyFormatVersions.map(String.init).joined(separator: "/")),
    ]
    if let sequence, k.iv == nil {
        // The IV actually used: the media sequence number as a 128-bit big-endian integer.
        let bytes = Key.implicitIV(sequence: sequence)
        o["implicit_iv"] = .number(Double(bytes.reduce(UInt64(0)) { $0 << 8 | UInt64($1) }))
    } else {
        o["implicit_iv"] = .null
    }
    return .object(o)
}

func json(_ s: Segment) -> JSON {
    .object([
        "uri": .string(s.uri), "resolved_url": str(s.resolvedURL?.absoluteString), "duration": .number(s.duration),
        "byterange": opt(s.byteRange) { .string($0.description) }, "discontinuity": .bool(s.discontinuity),
        "key": opt(s.key) { json($0, sequence: s.sequence) }, "sequence": int(s.sequence),
    ])
}

func json(_ start: StartOffset?) -> JSON {
    opt(start) { .object(["time_offset": .number($0.timeOffset), "precise": .bool($0.precise)]) }
}

func json(_ playlist: Playlist) -> JSON {
    switch playlist {
    case let .master(m):
        var sessionData: [String: JSON] = [:]
        for d in m.sessionData {
            var o: [String: JSON] = ["DATA-ID": .string(d.dataID)]
            if let v = d.value { o["VALUE"] = .string(v) }
            if let u = d.uri { o["URI"] = .string(u) }
            if let l = d.language { o["LANGUAGE"] = .string(l) }
            sessionData[d.dataID] = .object(o)
        }
        return .object([
            "kind": .string("master"), "version": int(m.version),
            "variants": .array(m.variants.map(json)), "iframe_variants": .array(m.iFrameVariants.map(json)),
            "renditions": .array(m.renditions.map(json)), "session_keys": .array(m.sessionKeys.map { json($0) }),
            "session_data": sessionData.isEmpty ? .null : .object(sessionData),
            "variant_count": int(m.variants.count), "bandwidths": .array(m.variants.map { int($0.bandwidth) }),
            "start": json(m.start), "variables": .object(m.definitions.mapValues(JSON.string)),
        ])
    case let .media(m):
        return .object([
            "kind": .string("media"), "version": int(m.version),
            "target_duration": int(m.targetDuration), "media_sequence": int(m.mediaSequence),
            "endlist": .bool(m.endList), "playlist_type": str(m.playlistType?.rawValue.lowercased()),
            "segment_count": int(m.segments.count), "segments": .array(m.segments.map(json)),
            "session_keys": .array(m.sessionKeys.map { json($0) }),
            "total_duration": .number(m.totalDuration), "live": .bool(m.isLive),
            "start": json(m.start), "variables": .object(m.definitions.mapValues(JSON.string)),
        ])
    }
}

// MARK: - Comparison

/// Keys that describe a case rather than assert something about it.
let metadataKeys: Set<String> = ["case", "source", "license", "expected_from", "notes", "upstream_assertions",
                                 "hand_corrected", "base_url", "expect_parse_error", "upstream_error"]

/// Compares only what `expected` lists. Returns the first difference, or nil.
func difference(_ expected: JSON, _ actual: JSON, path: String) -> String? {
    let field = path.split(separator: ".").last.map { String($0.split(separator: "[").first ?? $0) } ?? path
    func mismatch() -> String { "\(path): expected \(expected), got \(actual)" }

    switch (expected, actual) {
    case let (.object(e), .object(a)):
        for key in e.keys.sorted() where !(path.isEmpty && metadataKeys.contains(key)) {
            let sub = path.isEmpty ? key : "\(path).\(key)"
            guard let ev = e[key] else { continue }
            guard let av = a[key] else { return "\(sub): field not checked by this tool (expected \(ev))" }
            if let d = difference(ev, av, path: sub) { return d }
        }
        return nil
    case let (.array(e), .array(a)):
        if field == "iv_bytes" {
            let strip: ([JSON]) -> [JSON] = { Array($0.drop { $0 == .number(0) }) }
            return strip(e) == strip(a) ? nil : mismatch()
        }
        guard e.count == a.count else { return "\(path): expected \(e.count) entries, got \(a.count)" }
        for (i, (ev, av)) in zip(e, a).enumerated() {
            if let d = difference(ev, av, path: "\(path)[\(i)]") { return d }
        }
        return nil
    case let (.number(e), .number(a)):
        return abs(e - a) <= 1e-9 * max(1, abs(e)) ? nil : mismatch()
    case let (.string(e), .string(a)):
        switch field {
        case "iv":
            // Compare as 128-bit numbers: case of the digits and the 0x/0X prefix do not matter.
            let norm: (String) -> String = {
                let digits = $0.lowercased().hasPrefix("0x") ? String($0.dropFirst(2)) : $0
                return String(digits.lowercased().drop { $0 == "0" })
            }
            return norm(e) == norm(a) ? nil : mismatch()
        case "byterange":
            // "n" asserts the length only; "n@o" the offset too.
            return (e.contains("@") ? e == a : a.hasPrefix(e + "@") || a == e) ? nil : mismatch()
        case "playlist_type":
            return e.lowercased() == a.lowercased() ? nil : mismatch()
        default:
            return e == a ? nil : mismatch()
        }
    case (.null, .bool(false)):
        return nil  // an absent YES/NO attribute means NO
    default:
        return expected == actual ? nil : mismatch()
    }
}

// MARK: - HLS corpus

func runHLS(_ dir: String) -> Int32 {
    var isDir: ObjCBool = false
    guard FileManager.default.fileExists(atPath: dir, isDirectory: &isDir), isDir.boolValue else {
        print("hls: directory not found: \(dir)")
        return 2
    }
    let root = URL(fileURLWithPath: dir)
    let suffix = ".expected.json"
    let cases = (FileManager.default.enumerator(atPath: dir)?.compactMap { $0 as? String } ?? [])
        .filter { $0.hasSuffix(suffix) }
        .map { String($0.dropLast(suffix.count)) }
        .sorted()

    var passed = 0
    for name in cases {
        let caseID = (name as NSString).lastPathComponent
        let result = runHLSCase(root: root, name: name)
        if result == nil {
            passed += 1
            if declinedHLS[caseID] != nil { print("NOTE \(name): declined but passes now; drop it from the declined list") }
        } else if let failure = result {
            if let reason = declinedHLS[caseID] {
                print("DECLINED \(name): \(reason) [\(failure)]")
            } else {
                print("FAIL \(name): \(failure)")
            }
        }
    }
    print("hls: \(passed)/\(cases.count)")
    return 0
}

/// nil when the case passes, else what went wrong.
func runHLSCase(root: URL, name: String) -> String? {
    let expectedURL = root.appendingPathComponent(name + ".expected.json")
    let playlistURL = root.appendingPathComponent(name + ".m3u8")
    let expected: JSON
    let data: Data
    do {
        expected = try JSONDecoder().decode(JSON.self, from: Data(contentsOf: expectedURL))
        data = try Data(contentsOf: playlistURL)
    } catch {
        return "cannot read the case: \(error)"
    }
    let base = expected["base_url"]?.string.flatMap(URL.init(string:))
        ?? URL(string: "https://conformance.invalid/\(name).m3u8")
    let parsed: Playlist
    do {
        parsed = try Playlist.parse(data: data, url: base)
    } catch let error as PlaylistError {
        return expected["expect_parse_error"] == .bool(true) ? nil : "parse error: \(error)"
    } catch {
        return "unexpected error type: \(error)"
    }
    if expected["expect_parse_error"] == .bool(true) {
        return "expected a parse error, but it parsed as a \(parsed.master != nil ? "master" : "media") playlist"
    }
    return difference(expected, json(parsed), path: "")
}

// MARK: - Command line

let arguments = Array(CommandLine.arguments.dropFirst())
switch (arguments.first, arguments.count) {
case ("hls", 2):
    exit(runHLS(arguments[1]))
case ("subtitles", 2):
    exit(runSubtitles(arguments[1], verbose: false))
case ("subtitles", 3) where arguments.contains("--verbose"):
    exit(runSubtitles(arguments.dropFirst().first { $0 != "--verbose" } ?? "", verbose: true))
default:
    FileHandle.standardError.write(Data("usage: marquee-conformance hls DIR | subtitles [--verbose] DIR\n".utf8))
    exit(2)
}
