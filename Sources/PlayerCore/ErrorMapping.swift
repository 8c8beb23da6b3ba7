import ControlAPI
import GStreamerKit

extension APIError {
    /// Maps a pipeline error to a stable API code. The GError domain says what failed: a
    /// resource (the file or the network), the stream (what the bytes contain) or GStreamer.
    /// `missingPlugins`: what the pipeline's `missing-plugin` messages named before the error.
    /// playbin3 then fails with a vague "Internal data stream error" (not-linked), so those
    /// messages are what tells a missing decoder from broken media.
    init(pipelineError error: GStreamerError, remote: Bool, missingPlugins: [String] = []) {
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
