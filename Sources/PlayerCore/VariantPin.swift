import ControlAPI
import FoundationEssentials
import GLibRuntime
import GStreamerKit

/// How an HLS variant is pinned in GStreamer 1.22. hlsdemux2 exposes no stream selection for
/// variants; it picks the highest rate <= bandwidth-target-ratio x connection-bitrate, where a
/// variant's rate is its AVERAGE-BANDWIDTH when the playlist gives one, else its BANDWIDTH
/// (seen in the tests: with AVERAGE-BANDWIDTH present, limits made of BANDWIDTH values
/// picked the variant above the pinned one)
/// within [min-bitrate, max-bitrate], and with alternate audio renditions it may take the
/// audio's share off the connection bitrate. So a pin sets the ratio to 1, `max-bitrate` to the
/// variant's rate (nothing above it) and `connection-bitrate` just under the next higher
/// variant's rate (room for an audio share, yet nothing higher fits); `min-bitrate` stays 0 (with it
/// at the pinned BANDWIDTH, the audio share left no variant in range and the demuxer stayed
/// where it was). Set at element creation, it holds from the first segment. 0 everywhere and
/// the default ratio return to adaptive switching. A runtime change only shows after the
/// buffered data drains, so the player follows it with a flushing seek to the current
/// position (measured: 2.4 s instead of 35 s).
///
/// Read from streaming threads (element-setup) and written on the GLib thread: locked.
final class VariantPin: @unchecked Sendable {
    struct Limits: Equatable {
        /// The pinned variant's rate.
        var bandwidth: Int
        /// Just under the next higher variant's rate (or no limit for the top one).
        var connectionBitrate: Int
    }

    private let lock = ThreadLock()
    private var limits: Limits?

    static let defaultTargetRatio = 0.8

    var pinned: Limits? {
        get { lock.lock(); defer { lock.unlock() }; return limits }
        set { lock.lock(); limits = newValue; lock.unlock() }
    }

    /// The rate hlsdemux2 compares for a variant.
    static func rate(of variant: Variant) -> Int { variant.averageBandwidth ?? variant.bandwidth }

    /// The limits that pin a variant of this rate in a ladder with these rates.
    static func limits(pinning bandwidth: Int, ladder: [Int]) -> Limits {
        let next = ladder.filter { $0 > bandwidth }.min()
        return Limits(bandwidth: bandwidth, connectionBitrate: next.map { $0 - 1 } ?? Int(UInt32.max))
    }

    /// Applies the pin (or automatic mode) to an hlsdemux2 element. Any thread.
    func configure(_ demuxer: Element) {
        let pinned = self.pinned
        demuxer.set("bandwidth-target-ratio", pinned == nil ? Self.defaultTargetRatio : 1.0)
        demuxer.set("connection-bitrate", uint: UInt32(clamping: pinned?.connectionBitrate ?? 0))
        demuxer.set("min-bitrate", uint: 0)
        demuxer.set("max-bitrate", uint: UInt32(clamping: pinned?.bandwidth ?? 0))
    }
}
