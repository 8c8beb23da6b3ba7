import FoundationEssentials
import GLibRuntime
import HLS
import HTTPFetch

/// Asks an http(s) origin whether it answers, with Marquee's own small requests and the
/// session's headers: for HLS the current variant's media playlist and then (HEAD) the
/// segments playback needs next; for a progressive file a HEAD of the file. One request at
/// a time; a probe that was cancelled or superseded says nothing (a cancelled fetch still
/// completes, with an error, so each step checks that its probe is still the one asked).
@GLibActor
final class OriginProbe {
    enum Target: Sendable, Equatable {
        case file(url: String)
        case hls(playlistURL: String, position: Double)
    }

    private let fetcher: HTTPFetcher
    private var request: FetchHandle?
    /// Numbers probes: only the latest one's answers count.
    private var current = 0

    /// `fetcher`: the player's probe fetcher (a short timeout: a probe only asks whether the
    /// origin answers at all).
    init(fetcher: HTTPFetcher) {
        self.fetcher = fetcher
    }

    var isProbing: Bool { request != nil }

    func start(_ target: Target, headers: [String: String], completion: @escaping @GLibActor (RecoveryMachine.ProbeOutcome) -> Void) {
        cancel()
        let probe = current
        let finish: @GLibActor (RecoveryMachine.ProbeOutcome) -> Void = { [weak self] outcome in
            guard let self, self.current == probe else { return }
            self.current += 1
            self.request = nil
            completion(outcome)
        }
        switch target {
        case .file(let url):
            request = fetcher.head(url, headers: headers) { result in finish(Self.outcome(result, url: url)) }
        case .hls(let playlistURL, let position):
            request = fetcher.get(playlistURL, headers: headers) { [weak self] result in
                guard let self, self.current == probe else { return }
                guard case .success(let resource) = result else { return finish(Self.outcome(result, url: playlistURL)) }
                guard case .media(let media)? = try? Playlist.parse(data: resource.body, url: URL(string: resource.finalURL)) else {
                    return finish(.healthy)
                }
                self.probeSegments(Self.segmentsAhead(of: position, in: media), probe: probe, headers: headers, finish: finish)
            }
        }
    }

    func cancel() {
        current += 1
        request?.cancel()
        request = nil
    }

    /// HEADs each URL in turn; the first failure is the outcome.
    private func probeSegments(_ urls: ArraySlice<String>, probe: Int, headers: [String: String],
                               finish: @escaping @GLibActor (RecoveryMachine.ProbeOutcome) -> Void) {
        guard let url = urls.first else { return finish(.healthy) }
        request = fetcher.head(url, headers: headers) { [weak self] result in
            guard let self, self.current == probe else { return }
            let outcome = Self.outcome(result, url: url)
            if case .failed = outcome { return finish(outcome) }
            self.probeSegments(urls.dropFirst(), probe: probe, headers: headers, finish: finish)
        }
    }

    /// The segments playback needs next: for VOD those from `position` on, as far as the
    /// demuxer buffers ahead (about 10 s; the failing one is past what is buffered); for a
    /// live playlist, whose times are not the pipeline's, the newest two.
    nonisolated static func segmentsAhead(of position: Double, in media: MediaPlaylist) -> ArraySlice<String> {
        let urls = media.segments.map { $0.resolvedURL?.absoluteString ?? $0.uri }
        guard !media.isLive else { return urls.suffix(2) }
        var start = 0.0
        var ahead: [String] = []
        for (segment, url) in zip(media.segments, urls) {
            if start + segment.duration > position && start < position + 10 { ahead.append(url) }
            start += segment.duration
        }
        return ahead.prefix(6)
    }

    private nonisolated static func outcome(_ result: Result<FetchedResource, FetchError>, url: String) -> RecoveryMachine.ProbeOutcome {
        switch result {
        case .success: return .healthy
        case .failure(let failure):
            if let status = failure.status { return .failed("HTTP \(status) for \(url)") }
            return .failed("\(failure.message) (\(url))")
        }
    }
}
