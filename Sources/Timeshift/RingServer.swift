import CGStreamer
import CSoup
import FoundationEssentials
import GLibRuntime
import HTTPFetch
import TextSupport
import Logging

/// Serves timeshift rings to playbin3 over loopback HTTP (hlsdemux2 reads no file://):
/// `/ring/<token>/index.m3u8` is the ring's live playlist, `/ring/<token>/<segment>` a
/// segment file. Only files the ring lists are served, so nothing else in the data folder
/// is reachable.
///
/// It runs on a thread and GLib main context of its own, not on the daemon's GLib thread:
/// hlsdemux2 (1.22) refreshes live playlists synchronously from its own threads, also while
/// the GLib thread is blocked taking that very pipeline to NULL. A server on the GLib thread
/// could then never answer and the stop hung (seen in about one stop in eight during a seek).
/// Rings are published to it as immutable values; all methods are thread-safe.
public final class RingServer: @unchecked Sendable {
    /// What the server knows of one ring: set with `publish`.
    public struct Publication: Sendable, Equatable {
        public var folder: URL
        /// nil until enough is recorded to start playing: requests wait until then.
        public var playlist: String?
        public var files: Set<String>
        /// The ring's start (recording time) when this playlist was made.
        public var start: Double
        public init(folder: URL, playlist: String?, files: Set<String>, start: Double) {
            self.folder = folder
            self.playlist = playlist
            self.files = files
            self.start = start
        }
    }

    /// How long a playlist request waits for the first segments before a 503.
    static let firstSegmentsTimeout: UInt32 = 20_000

    private let lock = ThreadLock()
    // Guarded by `lock`:
    private var publications: [String: Publication] = [:]
    private var origins: [String: Double] = [:]
    // Server thread only:
    private var waiting: [String: [(message: OpaquePointer, timer: UnsafeMutablePointer<GSource>)]] = [:]

    /// The server's thread, its SoupServer and its GMainLoop live as long as the process:
    /// the player makes one RingServer on first use and keeps it.
    private let thread = ServiceThread(name: "marquee-ring-server")
    private let server: LoopbackServer
    /// "http://127.0.0.1:PORT".
    public var baseURL: String { server.baseURL }
    private let log = Logger(category: "timeshift")

    /// Starts the server thread and its listener on 127.0.0.1 (a free port).
    public init() throws {
        let owner = Owner()
        do {
            server = try LoopbackServer(on: thread) { message, path in owner.server?.handle(message, path: path) }
        } catch {
            throw RecorderError.cannotStart("cannot listen on 127.0.0.1 for the ring")
        }
        owner.set(self)
    }

    // MARK: Rings (any thread)

    /// A new token and the URL of its playlist.
    public func register(_ publication: Publication) -> (token: String, playlistURL: String) {
        let token = (0..<16).map { _ in String(printf: "%02x", UInt8.random(in: 0...255)) }.joined()
        lock.withLock { publications[token] = publication }
        return (token, "\(baseURL)/ring/\(token)/index.m3u8")
    }

    /// Replaces what is served for `token`; a playlist request waiting for it is answered.
    public func publish(_ publication: Publication, for token: String) {
        let known = lock.withLock { () -> Bool in
            guard publications[token] != nil else { return false }
            publications[token] = publication
            return true
        }
        if known && publication.playlist != nil { onServerThread { $0.answerWaiting(token) } }
    }

    public func unregister(_ token: String) {
        lock.withLock {
            publications[token] = nil
            origins[token] = nil
        }
        onServerThread { $0.answerWaiting(token) }
    }

    /// The ring's start when its playlist was first served: hlsdemux2 counts stream time
    /// from there, adding up EXTINF durations, so recording time = its time + this.
    public func origin(of token: String) -> Double? { lock.withLock { origins[token] } }

    private func onServerThread(_ work: @escaping @Sendable (RingServer) -> Void) {
        thread.perform { [weak self] in if let self { work(self) } }
    }

    // MARK: Requests (server thread)

    private func handle(_ message: OpaquePointer, path: String) {
        let parts = path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        guard parts.count == 3, parts[0] == "ring" else {
            soup_server_message_set_status(message, 404, nil)
            return
        }
        let token = parts[1], name = parts[2]
        guard let publication = lock.withLock({ publications[token] }) else {
            soup_server_message_set_status(message, 404, nil)
            return
        }
        if name == "index.m3u8" {
            if publication.playlist != nil {
                respondPlaylist(message, token: token)
            } else {
                wait(message, token: token)
            }
            return
        }
        guard publication.files.contains(name), !name.contains("/"), name != "..",
              let data = FileManager.default.contents(atPath: publication.folder.appendingPathComponent(name).path) else {
            soup_server_message_set_status(message, 404, nil)
            return
        }
        respond(message, status: 200, type: "video/mp2t", body: data)
    }

    /// Holds a playlist request until the ring has its first segments (or a timeout), so
    /// playbin3 can open the ring the moment recording starts.
    private func wait(_ message: OpaquePointer, token: String) {
        g_object_ref(UnsafeMutableRawPointer(message))
        soup_server_message_pause(message)
        let sendableMessage = UncheckedMessage(message)
        let timer = thread.after(milliseconds: Self.firstSegmentsTimeout) { [weak self] in
            self?.timeOut(sendableMessage.message, token: token)
        }
        waiting[token, default: []].append((message, timer))
    }

    private func timeOut(_ message: OpaquePointer, token: String) {
        guard var list = waiting[token], let index = list.firstIndex(where: { $0.message == message }) else { return }
        g_source_unref(list.remove(at: index).timer)
        waiting[token] = list
        soup_server_message_set_status(message, 503, nil)
        soup_server_message_unpause(message)
        g_object_unref(UnsafeMutableRawPointer(message))
    }

    private func answerWaiting(_ token: String) {
        for (message, timer) in waiting.removeValue(forKey: token) ?? [] {
            g_source_destroy(timer)
            g_source_unref(timer)
            respondPlaylist(message, token: token)
            soup_server_message_unpause(message)
            g_object_unref(UnsafeMutableRawPointer(message))
        }
    }

    private func respondPlaylist(_ message: OpaquePointer, token: String) {
        let playlist = lock.withLock { () -> String? in
            guard let publication = publications[token], let playlist = publication.playlist else { return nil }
            if origins[token] == nil { origins[token] = publication.start }
            return playlist
        }
        guard let playlist else {
            soup_server_message_set_status(message, 503, nil)
            return
        }
        respond(message, status: 200, type: "application/vnd.apple.mpegurl", body: Data(playlist.utf8))
    }

    private func respond(_ message: OpaquePointer, status: UInt32, type: String, body: Data) {
        soup_server_message_set_status(message, status, nil)
        soup_message_headers_replace(soup_server_message_get_response_headers(message), "Cache-Control", "no-cache")
        body.withUnsafeBytes { bytes in
            soup_server_message_set_response(message, type, SOUP_MEMORY_COPY,
                                             bytes.baseAddress?.assumingMemoryBound(to: CChar.self), UInt(bytes.count))
        }
    }
}

/// The way back from the server's C callbacks to the server object, set once it exists.
private final class Owner: @unchecked Sendable {
    private let lock = ThreadLock()
    private weak var owner: RingServer?
    func set(_ server: RingServer) { lock.withLock { owner = server } }
    var server: RingServer? { lock.withLock { owner } }
}

/// A SoupServerMessage carried to a timer on the server's own thread.
private struct UncheckedMessage: @unchecked Sendable {
    let message: OpaquePointer
    init(_ message: OpaquePointer) { self.message = message }
}
