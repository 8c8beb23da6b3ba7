import CGStreamer
import GStreamerSupport

/// A bus message turned into a Sendable value at the C boundary. Messages we do not act
/// on are dropped here, so the one consumer sees only what it handles.
public enum BusEvent: Sendable, Equatable {
    case endOfStream
    case error(GStreamerError)
    case warning(GStreamerError)
    /// Only state changes of the pipeline itself (children's changes are noise here).
    case stateChanged(old: ElementState, new: ElementState, pending: ElementState)
    case asyncDone
    case buffering(percent: Int)
    case durationChanged
    case streamCollection([MediaStream])
    case streamsSelected([String])
    case clockLost
    case latency
    case segmentDone
    /// The pipeline started a new stream: after a gapless switch to the next URI (playbin3's
    /// `about-to-finish`), the first buffers of the new one reached every sink.
    case streamStart
    /// A `Splice` was made (true) or a link failed (false).
    case spliced(Bool)
    /// What a call made by the `PipelineWorker` returned.
    case workDone(PipelineWork)
    /// An application or element message, by structure name ("adaptive-streaming-statistics"),
    /// with the structure's string, number and boolean fields as text.
    case element(name: String, source: String, fields: [String: String])

    /// nil for messages nobody handles.
    init?(message: UnsafeMutablePointer<GstMessage>, pipeline: UnsafeMutableRawPointer) {
        let type = message.pointee.type
        let src = message.pointee.src
        func sourceName() -> String? {
            guard let src, let n = gst_object_get_name(src) else { return nil }
            defer { g_free(n) }
            return String(cString: n)
        }
        switch type {
        case GST_MESSAGE_EOS:
            self = .endOfStream
        case GST_MESSAGE_ERROR, GST_MESSAGE_WARNING:
            var gerror: UnsafeMutablePointer<GError>? = nil
            var debug: UnsafeMutablePointer<gchar>? = nil
            if type == GST_MESSAGE_ERROR { gst_message_parse_error(message, &gerror, &debug) }
            else { gst_message_parse_warning(message, &gerror, &debug) }
            guard let gerror else { g_free(debug); return nil }
            let error = GStreamerError(taking: gerror, debug: debug, source: sourceName())
            self = type == GST_MESSAGE_ERROR ? .error(error) : .warning(error)
        case GST_MESSAGE_STATE_CHANGED:
            guard let src, UnsafeMutableRawPointer(src) == pipeline else { return nil }
            var old = GST_STATE_VOID_PENDING, new = GST_STATE_VOID_PENDING, pending = GST_STATE_VOID_PENDING
            gst_message_parse_state_changed(message, &old, &new, &pending)
            self = .stateChanged(old: ElementState(old), new: ElementState(new), pending: ElementState(pending))
        case GST_MESSAGE_ASYNC_DONE:
            guard let src, UnsafeMutableRawPointer(src) == pipeline else { return nil }
            self = .asyncDone
        case GST_MESSAGE_BUFFERING:
            var percent: Int32 = 0
            gst_message_parse_buffering(message, &percent)
            self = .buffering(percent: Int(percent))
        case GST_MESSAGE_DURATION_CHANGED:
            self = .durationChanged
        case GST_MESSAGE_STREAM_COLLECTION:
            var collection: UnsafeMutablePointer<GstStreamCollection>? = nil
            gst_message_parse_stream_collection(message, &collection)
            guard let collection else { return nil }
            defer { gst_object_unref(UnsafeMutableRawPointer(collection)) }
            self = .streamCollection(MediaStream.list(from: collection))
        case GST_MESSAGE_STREAMS_SELECTED:
            let ids = (0..<gst_message_streams_selected_get_size(message)).compactMap { index -> String? in
                guard let stream = gst_message_streams_selected_get_stream(message, index) else { return nil }
                defer { gst_object_unref(UnsafeMutableRawPointer(stream)) }
                return gst_stream_get_stream_id(stream).map { String(cString: $0) }
            }
            self = .streamsSelected(ids)
        case GST_MESSAGE_CLOCK_LOST:
            self = .clockLost
        case GST_MESSAGE_LATENCY:
            self = .latency
        case GST_MESSAGE_SEGMENT_DONE:
            self = .segmentDone
        case GST_MESSAGE_STREAM_START:
            // Bins post it once all their sinks have it; only the pipeline's own says the
            // whole pipeline switched.
            guard UnsafeMutableRawPointer(src) == pipeline else { return nil }
            self = .streamStart
        case GST_MESSAGE_ELEMENT, GST_MESSAGE_APPLICATION:
            guard let s = gst_message_get_structure(message) else { return nil }
            if type == GST_MESSAGE_APPLICATION, let work = PipelineWork(structure: s) {
                self = .workDone(work)
                return
            }
            if type == GST_MESSAGE_APPLICATION, String(cString: gst_structure_get_name(s)) == CGST_SPLICE_MESSAGE {
                var phase: Int32 = 0
                gst_structure_get_int(s, "phase", &phase)
                self = .spliced(phase == 2)
                return
            }
            var fields: [String: String] = [:]
            for index in 0..<max(0, gst_structure_n_fields(s)) {
                guard let name = gst_structure_nth_field_name(s, UInt32(index)),
                      let value = cgst_structure_field_text(s, name) else { continue }  // strings and numbers
                fields[String(cString: name)] = String(cString: value)
                g_free(value)
            }
            self = .element(name: String(cString: gst_structure_get_name(s)), source: sourceName() ?? "", fields: fields)
        default:
            return nil
        }
    }
}
