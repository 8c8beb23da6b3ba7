import CGStreamer
import GStreamerSupport

/// What a `typefind` element decided a stream is: the media type of its caps and how sure it
/// was (1-100; GStreamer's `GST_TYPE_FIND_POSSIBLE` is 50, `LIKELY` 80, `MAXIMUM` 100).
public struct TypeFound: Sendable, Equatable, CustomStringConvertible {
    public var mediaType: String
    public var probability: Int

    public init(mediaType: String, probability: Int) {
        self.mediaType = mediaType
        self.probability = probability
    }

    /// The element message `Element.reportTypeFound()` posts.
    public static let messageName = CGST_TYPE_FOUND_MESSAGE

    /// The report in a bus event, or nil when `event` is not one.
    public init?(_ event: BusEvent) {
        guard case .element(let name, _, let fields) = event, name == Self.messageName,
              let mediaType = fields["media-type"], let probability = fields["probability"].flatMap({ Int($0) }) else { return nil }
        self.init(mediaType: mediaType, probability: probability)
    }

    public var description: String { "\(mediaType) with probability \(probability)%" }
}

extension Element {
    /// For a `typefind` element (as playbin3's `element-setup` hands it over): from now on its
    /// `have-type` posts a `TypeFound.messageName` element message on the pipeline's bus. The
    /// signal runs on a streaming thread, so it only posts; the bus watch delivers the message
    /// on the GLib thread. Safe on any thread.
    public func reportTypeFound() { cgst_report_type_found(pointer) }
}
