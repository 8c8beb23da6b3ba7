import HLS

/// How the player names the variants of an HLS master: "v1" is the lowest BANDWIDTH, then
/// "v2", … upwards; variants of equal BANDWIDTH keep their playlist order. These are the ids of
/// `/v1/player/variant` and the `variants` event, and the offline library takes a `variant`
/// id in the same words, so both name them through this one function.
/// EXT-X-I-FRAME-STREAM-INF entries are not variants here: nothing plays them alone.
public enum HLSVariantIDs {
    public struct Ranked: Sendable, Equatable {
        /// The variant's index in `MasterPlaylist.variants` (playlist order).
        public var index: Int
        public var id: String
    }

    /// Every variant of `master`, lowest BANDWIDTH first, with its id.
    public static func ranked(_ master: MasterPlaylist) -> [Ranked] {
        master.variants.enumerated()
            .sorted { ($0.element.bandwidth, $0.offset) < ($1.element.bandwidth, $1.offset) }
            .enumerated()
            .map { rank, item in Ranked(index: item.offset, id: "v\(rank + 1)") }
    }
}
