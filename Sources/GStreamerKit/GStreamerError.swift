import CGStreamer

/// An error or warning as GStreamer reported it, with nothing dropped: the GError domain
/// and code say what kind of failure it was, `debug` says where.
public struct GStreamerError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Domain: String, Sendable {
        case core, library, resource, stream, other
    }

    public var domain: Domain
    public var code: Int32
    public var message: String
    public var debug: String?
    /// The name of the element that posted it ("source", "qtdemux0").
    public var source: String?

    public init(domain: Domain, code: Int32, message: String, debug: String? = nil, source: String? = nil) {
        self.domain = domain
        self.code = code
        self.message = message
        self.debug = debug
        self.source = source
    }

    /// Takes ownership of `error` and frees it.
    init(taking error: UnsafeMutablePointer<GError>, debug: UnsafeMutablePointer<gchar>?, source: String?) {
        let quark = error.pointee.domain
        let domain: Domain
        switch quark {
        case gst_core_error_quark(): domain = .core
        case gst_library_error_quark(): domain = .library
        case gst_resource_error_quark(): domain = .resource
        case gst_stream_error_quark(): domain = .stream
        default: domain = .other
        }
        self.init(domain: domain, code: error.pointee.code,
                  message: error.pointee.message.map { String(cString: $0) } ?? "unknown error",
                  debug: debug.map { String(cString: $0) }, source: source)
        g_error_free(error)
        g_free(debug)
    }

    public var isResourceNotFound: Bool {
        domain == .resource && (code == Int32(GST_RESOURCE_ERROR_NOT_FOUND.rawValue)
            || code == Int32(GST_RESOURCE_ERROR_OPEN_READ.rawValue))
    }

    /// No element can handle the stream (a codec or container without a plugin).
    public var isMissingPlugin: Bool {
        domain == .core && code == Int32(GST_CORE_ERROR_MISSING_PLUGIN.rawValue)
    }

    /// typefind found no type (`TYPE_NOT_FOUND`), or an element refused the type it was
    /// given (`WRONG_TYPE`: parsebin on text/plain): the bytes are not a media format.
    public var isUnrecognizedFormat: Bool {
        isTypeNotFound || (domain == .stream && code == Int32(GST_STREAM_ERROR_WRONG_TYPE.rawValue))
    }

    /// typefind found no type at all ("Could not determine type of stream").
    public var isTypeNotFound: Bool { domain == .stream && code == Int32(GST_STREAM_ERROR_TYPE_NOT_FOUND.rawValue) }

    public var description: String {
        "\(domain.rawValue) error \(code): \(message)" + (source.map { " (from \($0))" } ?? "")
    }
}
