import CGStreamer

/// The states of a GStreamer element.
public enum ElementState: Int, Sendable, Comparable, CustomStringConvertible {
    case voidPending = 0, null, ready, paused, playing

    init(_ s: GstState) { self = ElementState(rawValue: Int(s.rawValue)) ?? .voidPending }
    var gst: GstState { GstState(rawValue: UInt32(rawValue)) }

    public static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }
    public var description: String { ["void", "null", "ready", "paused", "playing"][rawValue] }
}

/// The result of a state change, with what it tells us kept: `noPreroll` means a live
/// source (it will not preroll in PAUSED), `async` means ASYNC_DONE will follow.
public enum StateChangeResult: Sendable, Equatable {
    case success, async, noPreroll, failure

    init(_ r: GstStateChangeReturn) {
        switch r {
        case GST_STATE_CHANGE_SUCCESS: self = .success
        case GST_STATE_CHANGE_ASYNC: self = .async
        case GST_STATE_CHANGE_NO_PREROLL: self = .noPreroll
        default: self = .failure
        }
    }
}

/// Owns one reference to a GstElement. Not thread-safe: the owner uses it on the GLib thread.
public final class Element {
    public let pointer: UnsafeMutablePointer<GstElement>

    /// Takes ownership of a full (non-floating) reference.
    public init(owning pointer: UnsafeMutablePointer<GstElement>) {
        self.pointer = pointer
    }

    /// Creates an element from a factory name; nil when the factory is missing.
    /// The name comes from the operator (a sink name), never parsed as pipeline text.
    public convenience init?(factory: String, name: String? = nil) {
        guard let element = gst_element_factory_make(factory, name) else { return nil }
        // Sink the floating reference so this object owns a full one.
        gst_object_ref_sink(UnsafeMutableRawPointer(element))
        self.init(owning: element)
    }

    deinit {
        gst_object_unref(UnsafeMutableRawPointer(pointer))
    }

    var raw: UnsafeMutableRawPointer { UnsafeMutableRawPointer(pointer) }

    public var name: String {
        guard let n = gst_object_get_name(UnsafeMutablePointer<GstObject>(OpaquePointer(pointer))) else { return "" }
        defer { g_free(n) }
        return String(cString: n)
    }

    // MARK: Properties (typed setters; g_object_set is variadic)

    public func hasProperty(_ name: String) -> Bool { cgst_has_property(raw, name) != 0 }
    public func set(_ name: String, _ value: String) { cgst_set_string(raw, name, value) }
    public func set(_ name: String, _ value: Bool) { cgst_set_bool(raw, name, value ? 1 : 0) }
    public func set(_ name: String, _ value: Int32) { cgst_set_int(raw, name, value) }
    public func set(_ name: String, uint value: UInt32) { cgst_set_uint(raw, name, value) }
    public func set(_ name: String, int64 value: Int) { cgst_set_int64(raw, name, value) }
    public func set(_ name: String, _ value: Double) { cgst_set_double(raw, name, value) }
    public func set(_ name: String, _ element: Element?) { cgst_set_object(raw, name, element?.raw) }
    /// Sets an enum or flags property from its nick, e.g. ("flags", "video+audio+text").
    public func set(_ name: String, nick: String) { cgst_set_from_string(raw, name, nick) }
    public func bool(_ name: String) -> Bool { cgst_get_bool(raw, name) != 0 }
    public func double(_ name: String) -> Double { cgst_get_double(raw, name) }
    public func int64(_ name: String) -> Int { cgst_get_int64(raw, name) }

    // MARK: State

    @discardableResult
    public func setState(_ state: ElementState) -> StateChangeResult {
        StateChangeResult(gst_element_set_state(pointer, state.gst))
    }

    /// Current and pending state without waiting.
    public var currentState: (current: ElementState, pending: ElementState) {
        var current = GST_STATE_VOID_PENDING, pending = GST_STATE_VOID_PENDING
        gst_element_get_state(pointer, &current, &pending, 0)
        return (ElementState(current), ElementState(pending))
    }

    /// Blocks up to `timeoutSeconds` for an async state change to finish. Tests and shutdown only.
    @discardableResult
    public func waitForState(timeoutSeconds: Double) -> (StateChangeResult, ElementState) {
        var current = GST_STATE_VOID_PENDING, pending = GST_STATE_VOID_PENDING
        let r = gst_element_get_state(pointer, &current, &pending, UInt(timeoutSeconds * Double(ClockTime.second)))
        return (StateChangeResult(r), ElementState(current))
    }

    // MARK: Queries, seeks, events

    /// Position in seconds, nil when unknown.
    public func queryPosition() -> Double? {
        var pos: Int = -1
        guard gst_element_query_position(pointer, GST_FORMAT_TIME, &pos) != 0 else { return nil }
        return ClockTime.seconds(pos)
    }

    /// Duration in seconds, nil when unknown or infinite (live).
    public func queryDuration() -> Double? {
        var dur: Int = -1
        guard gst_element_query_duration(pointer, GST_FORMAT_TIME, &dur) != 0 else { return nil }
        return ClockTime.seconds(dur)
    }

    /// Whether the pipeline can seek in time, and the range, as the seeking query reports
    /// (the duration stands in for an unknown end). nil when it cannot seek.
    public func querySeekable() -> (start: Double, end: Double)? {
        guard let query = gst_query_new_seeking(GST_FORMAT_TIME) else { return nil }
        defer { gst_mini_object_unref(UnsafeMutableRawPointer(query).assumingMemoryBound(to: GstMiniObject.self)) }
        guard gst_element_query(pointer, query) != 0 else { return nil }
        var seekable: gboolean = 0
        var start: Int = -1, end: Int = -1
        gst_query_parse_seeking(query, nil, &seekable, &start, &end)
        // A live source may answer "seekable" with an empty or open-ended range; without a
        // known end (from the query or the duration) there is nothing to seek in.
        guard seekable != 0, let s = ClockTime.seconds(start),
              let e = ClockTime.seconds(end) ?? queryDuration(), e > s else { return nil }
        return (s, e)
    }

    public struct SeekFlags: OptionSet, Sendable {
        public let rawValue: UInt32
        public init(rawValue: UInt32) { self.rawValue = rawValue }
        public static let flush = SeekFlags(rawValue: GST_SEEK_FLAG_FLUSH.rawValue)
        public static let accurate = SeekFlags(rawValue: GST_SEEK_FLAG_ACCURATE.rawValue)
        public static let keyUnit = SeekFlags(rawValue: GST_SEEK_FLAG_KEY_UNIT.rawValue)
        public static let snapBefore = SeekFlags(rawValue: GST_SEEK_FLAG_SNAP_BEFORE.rawValue)
        public static let segment = SeekFlags(rawValue: GST_SEEK_FLAG_SEGMENT.rawValue)
    }

    /// A time seek to `position` seconds at `rate`, up to `stop` seconds (nil: to the end; a
    /// stop set by an earlier seek is cleared, since an unset stop would keep it).
    @discardableResult
    public func seek(to position: Double, rate: Double, flags: SeekFlags, stop: Double? = nil) -> Bool {
        gst_element_seek(pointer, rate, GST_FORMAT_TIME, GstSeekFlags(rawValue: flags.rawValue),
                         GST_SEEK_TYPE_SET, ClockTime.nanoseconds(max(0, position)),
                         GST_SEEK_TYPE_SET, stop.map { ClockTime.nanoseconds($0) } ?? -1) != 0
    }

    /// Sends a select-streams event with these stream ids (playbin3 track selection).
    @discardableResult
    public func selectStreams(_ ids: [String]) -> Bool {
        var list: UnsafeMutablePointer<GList>? = nil
        for id in ids { list = g_list_append(list, g_strdup(id)) }
        defer { g_list_free_full(list, g_free) }
        guard let event = gst_event_new_select_streams(list) else { return false }
        return gst_element_send_event(pointer, event) != 0  // takes the event
    }

    public var bus: Bus? {
        guard let b = gst_element_get_bus(pointer) else { return nil }
        return Bus(owning: b)
    }
}
