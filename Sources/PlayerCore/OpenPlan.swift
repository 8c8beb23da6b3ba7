import ControlAPI
import HTTPFetch
import FoundationEssentials

/// What an open will do, decided before anything changes: the source resolved and checked,
/// whether its requests go through the header proxy, whether it is recorded for timeshift,
/// where and how it starts, and what Marquee reads of it itself. Pure: a refused open (a
/// bad URI, headers on a file, timeshift on a file or without a data directory) leaves
/// what plays untouched. `Player.open` then applies the plan once.
struct OpenPlan: Sendable, Equatable {
    /// The request after the features adjusted it (`prepareOpen`).
    var request: OpenRequest
    /// The source as resolved, with the request's userId and originalUrl; before the header
    /// proxy or the timeshift ring take over its playback URI.
    var source: ResolvedSource
    /// Request headers (and key headers) to send through the header proxy; nil: nothing
    /// to proxy (no headers and no key service).
    var proxiedHeaders: (headers: [String: String], keyHeaders: [String: String])? {
        request.needsRequestHeaders || keyService != nil ? (request.requestHeaders, request.keyHeaders ?? [:]) : nil
    }
    /// Where the proxy gets the session's keys: the open's `keyService`, else the daemon's
    /// `--key-service`, for http(s) sources only (a library copy has its keys with it).
    var keyService: KeyService?
    /// Record the source and play the ring, keeping this many seconds; nil: play it straight.
    var timeshiftWindow: Double?
    var autoplay: Bool
    var start: Double?
    /// An external subtitle file to read and select (read before anything changes).
    var subtitleURI: String?
    /// A local file cannot be live: it may go straight to PLAYING.
    var mayBeLive: Bool
    /// hlsdemux2 may play it (a network source, or a timeshift ring): hook its creation to
    /// pin variants.
    var mayUseHLSDemuxer: Bool
    /// Marquee reads the source's URL itself (the HLS ladder, liveness, a clear HTTP error).
    var fetchesMaster: Bool
    /// Seconds already watched, carried over by a feature.
    var watched: Double

    /// `timeshiftFolder`: where rings are recorded (nil: no timeshift); `defaultTimeshiftWindow`:
    /// the window for live sources opened without `timeshift`.
    init(_ request: OpenRequest, resolver: SourceResolver, timeshiftFolder: URL?, defaultTimeshiftWindow: Double?,
         defaultKeyService: KeyServiceRequest? = nil) throws(APIError) {
        var source: ResolvedSource
        if let copy = request.localCopy {
            // The offline library's copy: served on loopback, whatever schemes sources may
            // have; the snapshot keeps the origin's URI and says it plays offline.
            var info = SourceInfo(uri: request.uri, kind: copy.kind, live: false, contentId: request.contentId)
            info.offline = true
            source = ResolvedSource(playbackURI: copy.playbackURI, originURI: nil, info: info, isDemo: false)
        } else {
            source = try resolver.resolve(request)
        }
        if request.needsRequestHeaders, source.isLocalFile || source.isDemo {
            throw APIError(.invalidArgument, "'headers', 'referer', 'userAgent' and 'keyHeaders' apply to http(s) sources")
        }
        let isHTTP = request.localCopy == nil && ["http://", "https://"].contains { source.playbackURI.lowercased().hasPrefix($0) }
        if request.keyService != nil, !isHTTP, request.localCopy == nil {
            throw APIError(.invalidArgument, "'keyService' applies to http(s) sources (HLS), not files, demo:// or live sources")
        }
        keyService = isHTTP ? (request.keyService ?? defaultKeyService).map {
            KeyService(url: $0.uri, headers: $0.headers ?? [:], contentId: request.contentId, userId: request.userId)
        } : nil
        let window = request.timeshift?.window ?? (source.info.kind == .live ? defaultTimeshiftWindow : nil)
        if window != nil {
            guard !source.isLocalFile else {
                throw APIError(.invalidArgument, "'timeshift' applies to live sources (udp://, rtsp://, live HLS, demo://), not files")
            }
            guard timeshiftFolder != nil else {
                throw APIError(.invalidArgument, "timeshift needs a data directory (--data-dir)")
            }
        }
        source.info.userId = request.userId
        source.info.originalUrl = request.originalUrl
        if request.protected == true { source.info.protected = true }
        self.request = request
        self.source = source
        timeshiftWindow = window
        autoplay = request.autoplay ?? true
        start = request.start
        subtitleURI = request.subtitle
        mayBeLive = !source.isLocalFile
        mayUseHLSDemuxer = !source.isLocalFile && (!source.isDemo || window != nil)
        fetchesMaster = !source.isLocalFile && !source.isDemo && window == nil && (request.localCopy == nil || source.info.kind == .hls)
        watched = request.watched ?? 0
    }
}
