import ControlAPI
import GStreamerKit

extension APIError {
    /// Maps a pipeline error to a stable API code. The GError domain says what failed: a
    /// resource (the file or the network), the stream (what the bytes contain) or GStreamer.
    /// `missingPlugins`: what the pipeline's `missing-plugin` messages named before the error.
    /// playbin3 then fails with a vague "Internal data stream error" (not-linked), so those
    /// messages are what tells a missing decoder from broken media.
    init(pipelineError error: GStreamerError, remote: Bool, missingPlugins: [String] = []) {
        // typefind found nothing ("Could not determine type of stream", random bytes), or
        // parsebin refused what it found ("This appears to be a text file"): not media at all.
        if error.isUnrecognizedFormat {
            self.init(.unsupportedFormat, error.isTypeNotFound
                      ? "typefind found nothing: \(error.message)" : "not audio or video: \(error.message)")
            return
        }
        if !missingPlugins.isEmpty || error.isMissingPlugin {
            let names = missingPlugins.isEmpty ? error.message : Array(Set(missingPlugins)).sorted().joined(separator: ", ")
            self.init(.missingPlugin, "GStreamer has no plugin for: \(names); install the package that provides it "
                      + "(gstreamer1.0-plugins-good/-bad/-ugly or gstreamer1.0-libav)")
            return
        }
        var message = error.message
        // souphttpsrc and hlsdemux2 put the HTTP status in the debug text ("Not Found (404),
        // URL: ..."): scripts want the status, so it leads the message.
        if remote, let status = Self.httpStatus(in: error.debug ?? "") {
            message = "HTTP \(status): \(message)"
        }
        switch error.domain {
        case .resource where error.isResourceNotFound:
            self.init(remote ? .networkError : .notFound, message)
        case .resource:
            self.init(remote ? .networkError : .mediaError, message)
        case .stream:
            self.init(.mediaError, message)
        default:
            self.init(.pipelineError, message)
        }
    }

    /// The first " (NNN)" with NNN an HTTP error status. The space tells it from a source
    /// line number in the same debug text ("gstsouphttpsrc.c(512): ...").
    static func httpStatus(in text: String) -> Int? {
        var rest = Substring(text)
        while let open = rest.firstIndex(of: "(") {
            let digits = rest[rest.index(after: open)...].prefix(4)
            let afterSpace = open > rest.startIndex && rest[rest.index(before: open)] == " "
            if afterSpace, digits.count == 4, digits.last == ")", let code = Int(digits.dropLast()), (400..<600).contains(code) {
                return code
            }
            rest = rest[rest.index(after: open)...]
        }
        return nil
    }
}

/// The `missing-plugin` element messages of a pipeline (decodebin3 and parsebin post one per
/// stream they cannot handle): their human-readable `name` ("Theora decoder").
struct MissingPluginNotes {
    private(set) var names: [String] = []

    /// Notes `event` if it is such a message; true when it was.
    mutating func note(_ event: BusEvent) -> Bool {
        guard case .element(let name, _, let fields) = event, name == "missing-plugin" else { return false }
        let described = fields["name"] ?? fields["type"] ?? "an unknown element"
        if !names.contains(described) { names.append(described) }
        return true
    }
}

extension APIError {
    /// A local file whose stream collection has no audio or video stream: typefinding named a
    /// type (application/pdf, application/zip, text/html) that no demuxer or decoder takes,
    /// and parsebin exposed it as a stream of unknown kind. nil when something can play.
    static func unsupportedFormat(streams: [MediaStream], found: TypeFound?) -> APIError? {
        guard !streams.isEmpty, !streams.contains(where: { $0.kind == .audio || $0.kind == .video }) else { return nil }
        let what = found.map { "typefind found \($0)" }
            ?? "found " + streams.map { $0.codec ?? $0.kind.rawValue }.joined(separator: ", ")
        return APIError(.unsupportedFormat, "not audio or video: \(what)")
    }

    static let notMedia = "not audio or video: "

    /// A type found with less than this probability (GStreamer's `GST_TYPE_FIND_POSSIBLE`)
    /// is a guess: real media files are found at 80-100 (the container's magic bytes).
    static let weakTypeProbability = 50

    /// A pipeline error of a local file before its preroll, said with what typefind found when
    /// that tells more: a `media_error` of a file typefind only guessed at (a weak type), or
    /// whose type is subtitles or text (random bytes that start with "[" are found as LRC
    /// lyrics at 100%, and then fail as "Internal data stream error"), is `unsupported_format`.
    func explained(by found: TypeFound?) -> APIError {
        guard let found else { return self }
        if code == .unsupportedFormat {
            let cause = message.hasPrefix(Self.notMedia) ? String(message.dropFirst(Self.notMedia.count)) : message
            return APIError(.unsupportedFormat, "\(Self.notMedia)typefind found \(found) (\(cause))")
        }
        guard code == .mediaError else { return self }
        if found.probability < Self.weakTypeProbability {
            return APIError(.unsupportedFormat, "not audio or video: typefind found only \(found) (\(message))")
        }
        if found.mediaType.hasPrefix("text/") || found.mediaType.hasPrefix("application/x-subtitle") {
            return APIError(.unsupportedFormat, "not audio or video: typefind found \(found) (\(message))")
        }
        return self
    }

    /// A local file that has not prerolled a second after its open although typefinding only
    /// guessed its type: it is garbage that happened to look a little like something.
    static func unsupportedFormat(weak found: TypeFound?) -> APIError? {
        guard let found, found.probability < weakTypeProbability else { return nil }
        return APIError(.unsupportedFormat, "not audio or video: typefind found only \(found)")
    }
}
