/// The stable error codes of the control API. Scripts match on these strings, so a code
/// is never renamed; new ones are added. Each maps to one HTTP status.
public enum ErrorCode: String, Codable, Sendable, CaseIterable {
    case invalidJSON = "invalid_json"
    case invalidArgument = "invalid_argument"
    case unsupportedURI = "unsupported_uri"
    case notFound = "not_found"
    case forbidden
    case notSeekable = "not_seekable"
    case notLive = "not_live"
    case noSource = "no_source"
    case unknownTrack = "unknown_track"
    case unknownVariant = "unknown_variant"
    case unauthorized
    case payloadTooLarge = "payload_too_large"
    case routeNotFound = "route_not_found"
    case methodNotAllowed = "method_not_allowed"
    case unsupportedMediaType = "unsupported_media_type"
    case timeout
    case tooManyRequests = "too_many_requests"
    case mediaError = "media_error"
    case networkError = "network_error"
    case pipelineError = "pipeline_error"
    case internalError = "internal_error"
    /// PATCH, DELETE or swap of a picture-in-picture that is not running.
    case noPip = "no_pip"
    /// A snapshot was asked for while no video is on screen.
    case noVideo = "no_video"
    /// An external subtitle file that cannot be read or parsed.
    case subtitleError = "subtitle_error"
    /// The request's header section is over the server's limit (size or count).
    case headersTooLarge = "headers_too_large"
    /// A GStreamer element the media needs is not installed; the message names it.
    case missingPlugin = "missing_plugin"
    /// The file is not audio or video GStreamer recognises (random bytes, a PDF, a ZIP): the
    /// message says what typefinding found, if anything.
    case unsupportedFormat = "unsupported_format"
    /// The offline library (API-2 §1): no copy of the content; a copy still downloading; a
    /// licence that is spent (the message names the limit); the same content added twice; a
    /// download that would pass `--library-quota`.
    case notInLibrary = "not_in_library"
    case downloadIncomplete = "download_incomplete"
    case licenseExpired = "license_expired"
    case alreadyInLibrary = "already_in_library"
    case quotaExceeded = "quota_exceeded"
    /// The command does not apply in the state the thing is in: pausing a download that is
    /// not running, resuming a complete one, `queue.next` at the last item of a queue that
    /// does not loop.
    case invalidState = "invalid_state"
    /// Sessions, keys and protected content (API-2 §2): the session server refused the
    /// viewing (or stayed unreachable past `--session-grace`); the key service refused a key
    /// or failed for good; a snapshot while protected content plays; the URL resolver
    /// refused the content or failed.
    case sessionBlocked = "session_blocked"
    case keyError = "key_error"
    case protectedContent = "protected_content"
    case resolverError = "resolver_error"

    public var httpStatus: Int {
        switch self {
        case .invalidJSON, .invalidArgument, .unsupportedURI: return 400
        case .unauthorized: return 401
        case .forbidden, .licenseExpired, .sessionBlocked, .protectedContent: return 403
        case .notFound, .unknownTrack, .unknownVariant, .routeNotFound, .notInLibrary: return 404
        case .methodNotAllowed: return 405
        case .timeout: return 408
        case .notSeekable, .notLive, .noSource, .noPip, .downloadIncomplete, .alreadyInLibrary, .invalidState: return 409
        case .payloadTooLarge, .quotaExceeded: return 413
        case .unsupportedMediaType: return 415
        case .tooManyRequests: return 429
        case .headersTooLarge: return 431
        // unsupported_format is 422 like the other media errors, not 415: 415 is about the
        // request's own body (`unsupported_media_type`), and this request was well formed.
        case .mediaError, .networkError, .pipelineError, .subtitleError, .missingPlugin, .unsupportedFormat, .keyError, .resolverError: return 422
        case .internalError: return 500
        case .noVideo: return 503
        }
    }
}

/// An error as the API reports it: `{"error": {"code": ..., "message": ...}}`.
public struct APIError: Error, Codable, Sendable, Equatable, CustomStringConvertible {
    public var code: ErrorCode
    public var message: String

    public init(_ code: ErrorCode, _ message: String) {
        self.code = code
        self.message = message
    }

    public var httpStatus: Int { code.httpStatus }
    public var description: String { "\(code.rawValue): \(message)" }
}

/// The body of every error reply.
public struct ErrorReply: Codable, Sendable, Equatable {
    public var error: APIError
    public init(_ error: APIError) { self.error = error }
}
