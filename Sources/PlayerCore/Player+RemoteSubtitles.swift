import ControlAPI
import FoundationEssentials
import GLibRuntime
import HTTPFetch
import Subtitles
import TextSupport

/// http(s) subtitle files (`open`'s and queue items' `subtitle`, `POST
/// /v1/player/tracks/subtitle {"uri"}`): fetched with the item's request headers by the
/// daemon's `HTTPFetcher` (asynchronous libsoup on the GLib main context: the thread never
/// waits, as for master playlists; a thread of its own would add nothing), at most
/// `maxSubtitleFileBytes` like a local file, then parsed like one.
///
/// The open waits for its subtitle, as it waits for the URL resolver: a subtitle that
/// cannot be fetched or read refuses the whole open with `422 subtitle_error` (the contract
/// of local files), and playback goes on untouched meanwhile. The HTTP API and the WebSocket
/// hold their reply (ControlServer+Routing.swift, +Events.swift); a queue item has no reply
/// to hold, so its failure is published as an error, as a resolver failure is.
extension Player {
    /// Opens `request` once what it needs from the network arrived: the URL resolver's
    /// answer (`resolve: true`), then an http(s) subtitle. `completion` gets the snapshot as
    /// of the applied open, or the error (playback then untouched).
    public func openPreparing(_ request: OpenRequest,
                              completion: @escaping @Sendable @GLibActor (Result<PlayerSnapshot, APIError>) -> Void) throws(APIError) {
        if request.resolve == true {
            try openResolving(request, completion: completion)
        } else {
            openFetchingSubtitle(request, completion: completion)
        }
    }

    /// Whether an open must wait for the network before it can be applied.
    public func opensLater(_ request: OpenRequest) -> Bool {
        request.resolve == true || request.subtitle.map(SourceResolver.isRemoteSubtitle) == true
    }

    /// Fetches the open's http(s) subtitle, if it has one, then opens (with what the
    /// resolver answered, if it was asked); an open or a stop meanwhile drops it.
    func openFetchingSubtitle(_ request: OpenRequest, fromQueue: Bool = false, retrying: Bool = false, stallRetries: Int = 0,
                              resolved: ResolvedURL? = nil,
                              completion: (@Sendable @GLibActor (Result<PlayerSnapshot, APIError>) -> Void)? = nil) {
        func fail(_ error: APIError) {
            log.warning("open failed", ["uri": request.uri, "code": error.code.rawValue, "message": error.message])
            if let completion { return completion(.failure(error)) }
            feed(.failed(error))
        }
        func apply(_ subtitle: LoadedSubtitle?) {
            do throws(APIError) {
                try open(request, fromQueue: fromQueue, retrying: retrying, stallRetries: stallRetries, resolved: resolved,
                         fetchedSubtitle: subtitle)
                completion?(.success(snapshot()))
            } catch {
                fail(error)
            }
        }
        guard let uri = request.subtitle, SourceResolver.isRemoteSubtitle(uri) else { return apply(nil) }
        openGeneration += 1
        let generation = openGeneration
        do throws(APIError) {
            // The headers the source is fetched with; a resolved source's own headers stay
            // with the source (they may be a token for its origin only).
            try fetchSubtitle(uri, headers: request.requestHeaders, language: request.subtitleLanguage) { [weak self] outcome in
                guard let self else { return }
                guard generation == self.openGeneration else {
                    completion?(.failure(APIError(.invalidState, "a later command replaced this open while its subtitle was fetched")))
                    return
                }
                switch outcome {
                case .success(let subtitle): apply(subtitle)
                case .failure(let error): fail(error)
                }
            }
        } catch {
            fail(error)
        }
    }

    /// `POST /v1/player/tracks/subtitle {"uri": "http…"}`: fetches the file with the loaded
    /// item's request headers, then adds and selects it, unless another item was loaded
    /// meanwhile. A local file is added at once.
    public func addSubtitle(uri: String, completion: @escaping @Sendable @GLibActor (Result<PlayerSnapshot, APIError>) -> Void) {
        guard SourceResolver.isRemoteSubtitle(uri) else {
            do throws(APIError) { try addSubtitle(uri: uri); completion(.success(snapshot())) } catch { completion(.failure(error)) }
            return
        }
        do throws(APIError) {
            let session = try requireSource()
            try fetchSubtitle(uri, headers: session.requestHeaders) { [weak self, weak session] outcome in
                guard let self else { return }
                do throws(APIError) {
                    let loaded = try outcome.get()
                    guard let session, self.session === session else {
                        throw APIError(.invalidState, "another source was loaded while the subtitle was fetched")
                    }
                    try self.selectExternalSubtitle(self.attach(loaded, to: session, language: nil))
                    completion(.success(self.snapshot()))
                } catch {
                    completion(.failure(error))
                }
            }
        } catch {
            completion(.failure(error))
        }
    }

    /// Fetches and parses an http(s) subtitle; `completion` runs once on the GLib thread.
    /// Throws at once when the URL is not one Marquee may fetch (`--allow-scheme`).
    func fetchSubtitle(_ uri: String, headers: [String: String], language: String? = nil,
                       completion: @escaping @GLibActor (Result<LoadedSubtitle, APIError>) -> Void) throws(APIError) {
        let url = try configuration.resolver.remoteSubtitleURL(uri)
        let name = Self.subtitleName(url)
        log.info("fetching subtitle", ["name": name])
        fetcher.get(url, headers: headers, maxBytes: Self.maxSubtitleFileBytes) { outcome in
            completion(Result { () throws(APIError) in
                let fetched = try Self.subtitleBody(outcome, name: name)
                let format = Self.subtitleFormat(forContentType: fetched.contentType)
                    ?? Self.subtitleFormat(forExtension: Self.pathExtension(of: name))
                return try Self.parseSubtitle(fetched.body, name: name, format: format,
                                              charset: Self.charset(ofContentType: fetched.contentType), language: language)
            })
        }
    }

    /// The fetched body, or why there is none as `subtitle_error` naming the HTTP status.
    static func subtitleBody(_ outcome: Result<FetchedResource, FetchError>, name: String) throws(APIError) -> FetchedResource {
        switch outcome {
        case .success(let fetched): return fetched
        case .failure(let failure) where failure.tooLarge:
            throw APIError(.subtitleError, "\(name) is larger than 16 MiB: not a subtitle file")
        case .failure(let failure):
            let status = failure.status.map { "HTTP \($0)" } ?? "no answer"
            throw APIError(.subtitleError, "cannot fetch \(name) (\(status)): \(failure.message)")
        }
    }

    /// A Content-Type that names a subtitle format decides it (servers often send
    /// text/plain for all three: the extension or the content decides those).
    static func subtitleFormat(forContentType contentType: String?) -> SubtitleFormat? {
        guard let type = contentType?.split(separator: ";").first.map({ String($0).trimmingWhitespace().lowercased() }) else { return nil }
        switch type {
        case "text/vtt": return .webvtt
        case "application/x-subrip", "text/srt", "application/srt": return .srt
        case "application/x-sami", "text/x-sami": return .sami
        default: return nil
        }
    }

    /// The `charset` parameter of a Content-Type ("text/plain; charset=EUC-KR" → "EUC-KR").
    static func charset(ofContentType contentType: String?) -> String? {
        for parameter in (contentType ?? "").split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1).map { String($0).trimmingWhitespace() }
            if pair.count == 2, pair[0].lowercased() == "charset" {
                let value = String(pair[1].filter { $0 != "\"" })
                return value.isEmpty ? nil : value
            }
        }
        return nil
    }

    /// The URL's last path segment ("subs.srt"), or its host when the path has none.
    static func subtitleName(_ url: String) -> String {
        guard let parsed = URL(string: url) else { return url }
        let last = parsed.lastPathComponent
        return last.isEmpty || last == "/" ? (parsed.host ?? url) : last
    }

    static func pathExtension(of name: String) -> String {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "" }
        return String(name[name.index(after: dot)...])
    }
}
