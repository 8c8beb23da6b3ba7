import FoundationEssentials
import HLS

/// How a kept media playlist is named and rewritten.
///
/// Names (relative to the item's folder, all under `<folder>/`): segments "00001.ts",
/// "00002.ts", … in playback order; maps "init.mp4", then "init-2.mp4", …; keys "keys/0.key",
/// "keys/1.key", … (always ".key": what the origin calls its key service says nothing about
/// the 16 bytes it answers). Segments and maps keep their remote extension when it is a safe
/// one (`HLSLocalNames.safeExtensions`), else have none. Every file of a media playlist is in
/// its own folder, so playlists never share a name, and a key two playlists share is fetched
/// once for each (16 bytes).
///
/// The rewrite keeps the text line by line (durations, titles, discontinuities, program date
/// times, date ranges, byte ranges, media and discontinuity sequence numbers, so implicit IVs
/// are unchanged, ENDLIST) and changes only:
/// - segment URI lines: the local name (an EXT-X-GAP segment, which is never loaded, gets
///   "gap" unless its resource is kept for another segment);
/// - EXT-X-KEY and EXT-X-MAP: written again from the parsed tag with the local URI (METHOD,
///   IV, KEYFORMAT, KEYFORMATVERSIONS; BYTERANGE), where they take effect; one that no segment
///   follows is dropped;
/// - EXT-X-DEFINE: every variable as NAME/VALUE after the header, so the copy needs neither the
///   origin's query (QUERYPARAM) nor the master (IMPORT);
/// - dropped: EXT-X-SESSION-KEY and the low-latency tags (EXT-X-PART, -PART-INF,
///   -PRELOAD-HINT, -RENDITION-REPORT, -SERVER-CONTROL): they point at the origin, and a VOD
///   copy plays from whole segments;
/// - EXT-X-ENDLIST is added when a PLAYLIST-TYPE VOD playlist lacks it, so that every player
///   sees the copy as finished.
enum HLSOfflineMediaPlanner {
    /// The files, and each segment's local names relative to the playlist's folder.
    struct Plan {
        var files: [HLSOfflineFile] = []
        var segmentNames: [String] = []
        /// The EXT-X-MAP in effect, per segment.
        var mapNames: [String?] = []
        /// Parallel to each segment's `keys`; nil for METHOD=NONE.
        var keyNames: [[String?]] = []
    }

    static let droppedTags: Set<String> = [
        "#EXT-X-DEFINE", "#EXT-X-SESSION-KEY", "#EXT-X-PART", "#EXT-X-PART-INF", "#EXT-X-PRELOAD-HINT",
        "#EXT-X-RENDITION-REPORT", "#EXT-X-SERVER-CONTROL",
    ]

    static func files(for playlist: MediaPlaylist, base: URL, folder: String, keysFromService: Bool = false) throws(HLSOfflineError) -> Plan {
        var plan = Plan()
        var local: [String: String] = [:]
        var counts: [HLSOfflineFile.Role: Int] = [:]
        func add(_ url: String, _ role: HLSOfflineFile.Role) -> String {
            if let name = local[url] { return name }
            let n = counts[role, default: 0] + 1
            counts[role] = n
            let name: String
            switch role {
            case .segment: name = HLSLocalNames.segmentNumber(n) + HLSLocalNames.safeExtension(of: url)
            case .initSegment: name = (n == 1 ? "init" : "init-\(n)") + HLSLocalNames.safeExtension(of: url)
            case .key: name = "keys/\(n - 1).key"
            }
            local[url] = name
            plan.files.append(HLSOfflineFile(name: "\(folder)/\(name)", url: url, role: role))
            return name
        }
        var gaps: [(index: Int, url: String?)] = []
        for (index, segment) in playlist.segments.enumerated() {
            var keyNames: [String?] = []
            for key in segment.keys {
                keyNames.append(try keyURL(key, base: base, fromService: keysFromService).map { add($0, .key) })
            }
            plan.keyNames.append(keyNames)
            if let map = segment.map {
                plan.mapNames.append(add(try HLSOfflineSource.fetchURL(map.resolvedURL, uri: map.uri, what: "EXT-X-MAP", in: base), .initSegment))
            } else {
                plan.mapNames.append(nil)
            }
            if segment.gap {
                // Never loaded, so never fetched: its name is only a placeholder.
                gaps.append((index, try? HLSOfflineSource.fetchURL(segment.resolvedURL, uri: segment.uri, what: "segment", in: base)))
                plan.segmentNames.append("gap")
            } else {
                plan.segmentNames.append(add(try HLSOfflineSource.fetchURL(segment.resolvedURL, uri: segment.uri, what: "segment", in: base), .segment))
            }
        }
        for gap in gaps {
            if let url = gap.url, let name = local[url] { plan.segmentNames[gap.index] = name }
        }
        return plan
    }

    /// The URL to fetch a key from, or with a key service (`fromService`) the key URI to ask
    /// it for: as written when it has a scheme (`skd://…`), else resolved; nil for METHOD=NONE.
    static func keyURL(_ key: Key, base: URL, fromService: Bool = false) throws(HLSOfflineError) -> String? {
        switch key.method {
        case .none:
            return nil
        case .aes128, .sampleAES:
            let uri = key.uri ?? ""
            if fromService, !uri.isEmpty {
                return URL(string: uri)?.scheme != nil ? uri : try HLSOfflineSource.fetchURL(key.resolvedURL, uri: uri, what: "key", in: base)
            }
            if let resolved = key.resolvedURL, !HLSOfflineSource.isFetchable(resolved) {
                throw .unsupported("the \(key.method) key '\(uri)' in \(base.absoluteString) is not fetched over http(s); "
                    + "keys from a key service (skd://, data:) are kept only with a keyService")
            }
            return try HLSOfflineSource.fetchURL(key.resolvedURL, uri: uri, what: "key", in: base)
        case let .other(method):
            throw .unsupported("METHOD=\(method) in \(base.absoluteString) cannot be kept: only AES-128 and SAMPLE-AES keys can")
        }
    }

    static func rewrite(_ text: String, playlist: MediaPlaylist, plan: Plan) throws(HLSOfflineError) -> String {
        let lines = HLSPlaylistLines.split(text)
        let segments = playlist.segments
        // The EXT-X-MAP that takes effect for segment k is the last one before its URI line.
        var lastMapLine: [Int: Int] = [:]
        var k = 0
        for (i, line) in lines.enumerated() {
            switch line.kind {
            case .uri: k += 1
            case .tag("#EXT-X-MAP"): lastMapLine[k] = i
            case .tag("#EXT-X-SKIP"):
                throw .unsupported("the playlist is a delta update (EXT-X-SKIP): it does not list every segment")
            default: break
            }
        }
        guard k == segments.count else {
            throw .invalidSource("the playlist has \(k) URI lines for \(segments.count) segments")
        }

        var out = ["#EXTM3U"]
        for name in playlist.definitions.keys.sorted() {
            out.append("#EXT-X-DEFINE:" + HLSAttributeWriter.write([("NAME", .quoted(name)),
                                                                     ("VALUE", .quoted(playlist.definitions[name] ?? ""))]))
        }
        k = 0
        var keysWrittenFor = -1
        var ended = false
        for (i, line) in lines.enumerated() {
            switch line.kind {
            case .comment:
                out.append(line.text)
            case .uri:
                out.append(plan.segmentNames[k])
                k += 1
            case let .tag(name):
                switch name {
                case "#EXT-X-KEY":
                    // A run of EXT-X-KEY tags before a segment is its whole key set (one per KEYFORMAT).
                    guard k < segments.count, keysWrittenFor != k else { continue }
                    keysWrittenFor = k
                    for (key, local) in zip(segments[k].keys, plan.keyNames[k]) { out.append(keyLine(key, local: local)) }
                case "#EXT-X-MAP":
                    guard k < segments.count, lastMapLine[k] == i, let map = segments[k].map, let local = plan.mapNames[k] else { continue }
                    out.append(mapLine(map, local: local))
                case "#EXT-X-ENDLIST":
                    ended = true
                    out.append(line.text)
                case _ where droppedTags.contains(name):
                    continue
                default:
                    out.append(line.text)
                }
            }
        }
        if !ended { out.append("#EXT-X-ENDLIST") }
        return out.joined(separator: "\n") + "\n"
    }

    private static func keyLine(_ key: Key, local: String?) -> String {
        guard key.method != .none, let local else { return "#EXT-X-KEY:METHOD=NONE" }
        var attributes: [(name: String, value: HLSAttributeWriter.Value)] = [
            ("METHOD", .plain(key.method.description)), ("URI", .quoted(local)),
        ]
        if let iv = key.iv { attributes.append(("IV", .plain(HLSAttributeWriter.hex(iv)))) }
        if key.keyFormat != "identity" { attributes.append(("KEYFORMAT", .quoted(key.keyFormat))) }
        if key.keyFormatVersions != [1] {
            attributes.append(("KEYFORMATVERSIONS", .quoted(key.keyFormatVersions.map(String.init).joined(separator: "/"))))
        }
        return "#EXT-X-KEY:" + HLSAttributeWriter.write(attributes)
    }

    private static func mapLine(_ map: MapInfo, local: String) -> String {
        var attributes: [(name: String, value: HLSAttributeWriter.Value)] = [("URI", .quoted(local))]
        if let range = map.byteRange { attributes.append(("BYTERANGE", .quoted("\(range.length)@\(range.offset)"))) }
        return "#EXT-X-MAP:" + HLSAttributeWriter.write(attributes)
    }
}
