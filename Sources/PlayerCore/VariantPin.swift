import GStreamerKit
import Foundation

/// How an HLS variant is pinned in GStreamer 1.22. hlsdemux2 exposes no stream selection for
/// variants; it picks the highest BANDWIDTH <= bandwidth-target-ratio x connection-bitrate.
/// With the ratio at 1 and connection-bitrate, min-bitrate and max-bitrate all at the pinned
/// variant's BANDWIDTH, that variant is the only choice, from the first segment when set at
/// element creation. 0 everywhere (and the default ratio) returns to adaptive switching.
/// A runtime change only shows after the buffered data drains, so the player follows it with
/// a flushing seek to the current position (measured: 2.4 s instead of 35 s).
///
/// Read from streaming threads (element-setup) and written on the GLib thread: locked.
final class VariantPin: @unchecked Sendable {
    private let lock = NSLock()
    private var bitrate: Int?

    static let defaultTargetRatio = 0.8

    var pinnedBitrate: Int? {
        get { lock.lock(); defer { lock.unlock() }; return bitrate }
        set { lock.lock(); bitrate = newValue; lock.unlock() }
    }

    /// Applies the pin (or automatic mode) to an hlsdemux2 element. Any thread.
    func configure(_ demuxer: Element) {
        let pinned = pinnedBitrate.map { UInt32(clamping: $0) }
        demuxer.set("bandwidth-target-ratio", pinned == nil ? Self.defaultTargetRatio : 1.0)
        demuxer.set("connection-bitrate", uint: pinned ?? 0)
        demuxer.set("min-bitrate", uint: pinned ?? 0)
        demuxer.set("max-bitrate", uint: pinned ?? 0)
    }
}
