import CGStreamer
import GStreamerSupport
import FoundationEssentials

/// Process-wide GStreamer set-up.
public enum GStreamer {
    private static let once: Void = {
        gst_init(nil, nil)
        // marquee-copy://: the offline library's file copies, read in pull mode (copysrc.c).
        _ = cgst_copy_src_register()
    }()

    /// Initialises GStreamer once per process; later calls are free. Any thread.
    public static func initialize() { _ = once }

    /// "1.22.0"
    public static var version: String {
        var major: UInt32 = 0, minor: UInt32 = 0, micro: UInt32 = 0, nano: UInt32 = 0
        gst_version(&major, &minor, &micro, &nano)
        return "\(major).\(minor).\(micro)"
    }

    /// Whether an element factory of this name is installed.
    public static func hasElement(_ factoryName: String) -> Bool {
        guard let factory = gst_element_factory_find(factoryName) else { return false }
        gst_object_unref(UnsafeMutableRawPointer(factory))
        return true
    }
}

/// Conversions between seconds (the API's unit) and GStreamer nanoseconds.
public enum ClockTime {
    public static let none: UInt = cgst_clock_time_none
    public static let second: UInt = cgst_second

    public static func nanoseconds(_ seconds: Double) -> Int {
        Int((seconds * Double(second)).rounded())
    }

    /// nil for GST_CLOCK_TIME_NONE and negative values.
    public static func seconds(_ nanoseconds: Int) -> Double? {
        guard nanoseconds >= 0, UInt(nanoseconds) != none else { return nil }
        return Double(nanoseconds) / Double(second)
    }
}
