import FoundationEssentials

/// Drives a parse: splits the text into lines, decides master or media, and handles the tags
/// both kinds share (EXT-X-VERSION, EXT-X-INDEPENDENT-SEGMENTS, EXT-X-START, EXT-X-DEFINE).
/// The kind-specific loops are in PlaylistParser+Master.swift and PlaylistParser+Media.swift.
struct PlaylistParser {
    let url: URL?
    var variables: VariableTable

    init(url: URL?, imports: [String: String]) {
        self.url = url
        variables = VariableTable(imports: imports, playlistURL: url)
    }

    mutating func parse(_ text: String) throws -> Playlist {
        let lines = try PlaylistLines.split(text)
        if try isMaster(lines) {
            return .master(try parseMaster(lines))
        }
        return .media(try parseMedia(lines))
    }

    /// A playlist is a master playlist when it has master-only tags. Having both master-only
    /// and media-only tags is an error (RFC 8216 s4.1); having neither makes an (empty) media
    /// playlist.
    func isMaster(_ lines: [PlaylistLine]) throws -> Bool {
        var master = false
        var media = false
        for line in lines {
            guard case let .tag(name, _) = line.kind else { continue }
            if Tag.masterOnly.contains(name) {
                master = true
            } else if Tag.mediaOnly.contains(name) {
                media = true
            } else {
                continue
            }
            if master && media { throw PlaylistError(line: line.number, reason: .mixedPlaylist(tag: name)) }
        }
        return master
    }

    // MARK: - Shared helpers

    /// The attribute list of a tag that must have one.
    mutating func attributes(_ value: String?, tag: String, line: Int) throws -> AttributeList {
        guard let value, !value.isEmpty else {
            throw PlaylistError(line: line, reason: .malformedTag(tag: tag, detail: "missing attribute list"))
        }
        return try AttributeList(parsing: value, tag: tag, line: line) { try self.variables.substitute($0, line: line) }
    }

    /// A tag whose value is one decimal-integer.
    func integerValue(_ value: String?, tag: String, line: Int) throws -> Int {
        let text = String(PlaylistLines.trim(Substring(value ?? "")))
        guard let n = try NumberParsing.decimalInteger(text, line: line) else {
            throw PlaylistError(line: line, reason: .malformedTag(tag: tag, detail: "expected a decimal integer, got '\(text)'"))
        }
        return n
    }

    /// A URI line, with variables substituted.
    mutating func uriLine(_ text: String, line: Int) throws -> String {
        try variables.substitute(text, line: line)
    }

    enum Common {
        case version(Int)
        case independentSegments
        case start(StartOffset)
        case handled

        /// Records the tag on either kind of playlist.
        func apply<P: CommonPlaylistFields>(to playlist: inout P) {
            switch self {
            case let .version(v): playlist.version = v
            case .independentSegments: playlist.independentSegments = true
            case let .start(s): playlist.start = s
            case .handled: break
            }
        }
    }

    /// Handles the tags common to both kinds; nil for any other tag.
    mutating func commonTag(_ name: String, _ value: String?, line: Int) throws -> Common? {
        switch name {
        case Tag.version:
            return .version(try integerValue(value, tag: name, line: line))
        case Tag.independentSegments:
            return .independentSegments
        case Tag.start:
            let a = try attributes(value, tag: name, line: line)
            let offset = try a.require("TIME-OFFSET") { try a.signedFloat($0) }
            return .start(StartOffset(timeOffset: offset, precise: try a.bool("PRECISE") ?? false))
        case Tag.define:
            let a = try attributes(value, tag: name, line: line)
            try variables.define(a)
            return .handled
        default:
            return nil
        }
    }
}

/// What master and media playlists share: the tags `commonTag` handles.
protocol CommonPlaylistFields {
    var version: Int? { get set }
    var independentSegments: Bool { get set }
    var start: StartOffset? { get set }
}

extension MasterPlaylist: CommonPlaylistFields {}
extension MediaPlaylist: CommonPlaylistFields {}
