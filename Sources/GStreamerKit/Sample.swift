import CGStreamer
import GStreamerSupport
import FoundationEssentials

/// Owns one reference to a GstSample (a buffer with its caps). Samples are immutable and
/// reference-counted by GStreamer, so any thread may use one.
public final class Sample: @unchecked Sendable {
    let pointer: OpaquePointer

    init(owning pointer: OpaquePointer) { self.pointer = pointer }

    deinit { gst_sample_unref(pointer) }

    /// The buffer's presentation timestamp in seconds, nil when it has none.
    public var presentationTime: Double? {
        guard let buffer = gst_sample_get_buffer(pointer) else { return nil }
        let pts = buffer.pointee.pts
        return pts == UInt64.max ? nil : Double(pts) / 1e9  // GST_CLOCK_TIME_NONE
    }

    /// The frame as JPEG, scaled to `width` pixels (nil: as it is). Blocks while a small
    /// conversion pipeline runs (a few ms): call it off the GLib thread.
    public func jpeg(width: Int? = nil, timeoutSeconds: Double = 2) -> Data? {
        guard let bytes = cgst_sample_to_jpeg(pointer, Int32(width ?? 0), guint64(timeoutSeconds * Double(cgst_second))) else { return nil }
        defer { g_bytes_unref(bytes) }
        var size = 0
        guard let data = g_bytes_get_data(bytes, &size), size > 0 else { return nil }
        return Data(bytes: data, count: size)
    }
}

/// The size of a raw video stream.
public struct VideoSize: Sendable, Equatable {
    public var width: Int
    public var height: Int
    /// Frames per second; nil when the caps say none (variable or still).
    public var frameRate: (numerator: Int, denominator: Int)?

    public init(width: Int, height: Int, frameRate: (numerator: Int, denominator: Int)? = nil) {
        self.width = width
        self.height = height
        self.frameRate = frameRate
    }

    public static func == (a: VideoSize, b: VideoSize) -> Bool {
        a.width == b.width && a.height == b.height && a.frameRate?.numerator == b.frameRate?.numerator
            && a.frameRate?.denominator == b.frameRate?.denominator
    }
}

extension Element {
    /// A sink's most recent buffer ("last-sample"), nil before the first.
    public var lastSample: Sample? {
        guard hasProperty("last-sample"), let sample = cgst_get_sample(raw, "last-sample") else { return nil }
        return Sample(owning: sample)
    }

    public func set(_ name: String, uint64 value: UInt64) { cgst_set_uint64(raw, name, guint64(value)) }
}

extension Pad {
    /// The raw video size this pad carries now; nil before negotiation or for non-video.
    public var videoSize: VideoSize? {
        var width: Int32 = 0, height: Int32 = 0, fpsN: Int32 = 0, fpsD: Int32 = 1
        guard cgst_pad_video_size(pointer, &width, &height, &fpsN, &fpsD) != 0 else { return nil }
        return VideoSize(width: Int(width), height: Int(height),
                         frameRate: fpsN > 0 && fpsD > 0 ? (Int(fpsN), Int(fpsD)) : nil)
    }

    // Pad properties (a compositor's sink pads carry the layout).
    public func set(_ name: String, _ value: Int32) { cgst_set_int(UnsafeMutableRawPointer(pointer), name, value) }
    public func set(_ name: String, uint value: UInt32) { cgst_set_uint(UnsafeMutableRawPointer(pointer), name, value) }
    public func set(_ name: String, _ value: Double) { cgst_set_double(UnsafeMutableRawPointer(pointer), name, value) }
    public func set(_ name: String, nick: String) { cgst_set_from_string(UnsafeMutableRawPointer(pointer), name, nick) }
}
