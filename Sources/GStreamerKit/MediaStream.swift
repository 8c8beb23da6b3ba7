import CGStreamer
import GStreamerSupport

/// One elementary stream of a stream collection (playbin3), as a Sendable value.
public struct MediaStream: Sendable, Equatable {
    public enum Kind: String, Sendable { case audio, video, text, other }

    public var id: String
    public var kind: Kind
    public var language: String?
    public var title: String?
    public var codec: String?

    public init(id: String, kind: Kind, language: String? = nil, title: String? = nil, codec: String? = nil) {
        self.id = id
        self.kind = kind
        self.language = language
        self.title = title
        self.codec = codec
    }

    /// Reads every stream of a collection. Does not take ownership of `collection`.
    static func list(from collection: UnsafeMutablePointer<GstStreamCollection>) -> [MediaStream] {
        (0..<gst_stream_collection_get_size(collection)).compactMap { index in
            gst_stream_collection_get_stream(collection, index).map(MediaStream.init(stream:))
        }
    }

    init(stream: UnsafeMutablePointer<GstStream>) {
        id = gst_stream_get_stream_id(stream).map { String(cString: $0) } ?? ""
        let type = gst_stream_get_stream_type(stream).rawValue
        if type & GST_STREAM_TYPE_VIDEO.rawValue != 0 { kind = .video }
        else if type & GST_STREAM_TYPE_AUDIO.rawValue != 0 { kind = .audio }
        else if type & GST_STREAM_TYPE_TEXT.rawValue != 0 { kind = .text }
        else { kind = .other }
        if let tags = gst_stream_get_tags(stream) {
            language = tags.string(GST_TAG_LANGUAGE_CODE)
            title = tags.string(GST_TAG_TITLE)
            codec = tags.string(kind == .audio ? GST_TAG_AUDIO_CODEC : kind == .video ? GST_TAG_VIDEO_CODEC : GST_TAG_SUBTITLE_CODEC)
                ?? tags.string(GST_TAG_CODEC)
            gst_mini_object_unref(UnsafeMutableRawPointer(tags).assumingMemoryBound(to: GstMiniObject.self))
        }
        if codec == nil, let caps = gst_stream_get_caps(stream) {
            if let d = gst_pb_utils_get_codec_description(caps) {
                codec = String(cString: d)
                g_free(d)
            }
            gst_mini_object_unref(UnsafeMutableRawPointer(caps).assumingMemoryBound(to: GstMiniObject.self))
        }
    }
}

extension UnsafeMutablePointer where Pointee == GstTagList {
    func string(_ tag: String) -> String? {
        var value: UnsafeMutablePointer<gchar>? = nil
        guard gst_tag_list_get_string(self, tag, &value) != 0, let value else { return nil }
        defer { g_free(value) }
        return String(cString: value)
    }
}
