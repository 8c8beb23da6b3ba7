import CGStreamer
import FoundationEssentials
import TextSupport

/// Builds a pipeline from a template in `pipelines/`: structure only, named elements, no
/// user data. Runtime values are set afterwards as properties on the named elements.
public enum PipelineTemplate {
    public enum ParseError: Error, CustomStringConvertible {
        case failed(String)
        public var description: String { if case .failed(let m) = self { return m }; return "" }
    }

    /// Strips `#` comment lines and parses the rest with gst_parse_launch.
    public static func parse(_ template: String) throws -> Element {
        try parse(template) { description, error in gst_parse_launch(description, &error) }
    }

    /// A template as a bin whose unlinked pads are ghosted ("sink", "src"): a section that
    /// code links into a running pipeline.
    public static func parseBin(_ template: String) throws -> Element {
        try parse(template) { description, error in
            gst_parse_bin_from_description(description, 1, &error).map {
                UnsafeMutableRawPointer($0).assumingMemoryBound(to: GstElement.self)
            }
        }
    }

    private static func parse(_ template: String,
                              with parser: (String, inout UnsafeMutablePointer<GError>?) -> UnsafeMutablePointer<GstElement>?) throws -> Element {
        let description = template.split(separator: "\n", omittingEmptySubsequences: false)
            .filter { !$0.trimmingHorizontalWhitespace().hasPrefix("#") }
            .joined(separator: " ")
        var error: UnsafeMutablePointer<GError>? = nil
        let element = parser(description, &error)
        if let error {
            // gst_parse_launch may return an element and set an error at once (a missing
            // property or element): both are failures for a template.
            let message = error.pointee.message.map { String(cString: $0) } ?? "parse error"
            g_error_free(error)
            if let element { gst_object_unref(UnsafeMutableRawPointer(element)) }
            throw ParseError.failed(message)
        }
        guard let element else { throw ParseError.failed("parse returned nothing") }
        gst_object_ref_sink(UnsafeMutableRawPointer(element))
        return Element(owning: element)
    }
}

extension Element {
    /// A named child of a bin, nil when absent.
    public func child(named name: String) -> Element? {
        guard let found = gst_bin_get_by_name(UnsafeMutableRawPointer(pointer).assumingMemoryBound(to: GstBin.self), name) else { return nil }
        return Element(owning: found)
    }
}

extension Element {
    /// Redistributes latency in a bin (the answer to a LATENCY message).
    public func recalculateLatency() {
        gst_bin_recalculate_latency(UnsafeMutableRawPointer(pointer).assumingMemoryBound(to: GstBin.self))
    }
}
