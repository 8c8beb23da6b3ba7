/// Why an HLS item cannot be planned for keeping, with a stable code the item's `error` reports:
/// - `invalid_source`: the text is not a playlist Marquee's parser accepts, is the wrong kind
///   (a master where a media playlist was expected), has no segments, or names a URI that does
///   not resolve to a URL.
/// - `unsupported`: a playlist Marquee cannot keep yet: live or event playlists, I-frame only
///   playlists, keys that are not fetched over http(s) (skd://, data:), encryption methods other
///   than AES-128 and SAMPLE-AES, media that is not on http(s).
/// - `unknown_variant`: a `variant` id the ladder does not have (the player's code for the same
///   mistake in `/v1/player/variant`); the message lists the ids.
/// - `invalid_argument`: a caller's mistake, such as a folder name that is not one safe path
///   component.
public struct HLSOfflineError: Error, Sendable, Equatable, CustomStringConvertible {
    public var code: String
    public var message: String

    public init(code: String, message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code): \(message)" }

    static func invalidSource(_ message: String) -> HLSOfflineError { HLSOfflineError(code: "invalid_source", message: message) }
    static func unsupported(_ message: String) -> HLSOfflineError { HLSOfflineError(code: "unsupported", message: message) }
    static func unknownVariant(_ message: String) -> HLSOfflineError { HLSOfflineError(code: "unknown_variant", message: message) }
    static func invalidArgument(_ message: String) -> HLSOfflineError { HLSOfflineError(code: "invalid_argument", message: message) }
}
