import CSoup
import Foundation
import GLibRuntime
import HTTPFetch

/// Serves timeshift rings to playbin3 over loopback HTTP (hlsdemux2 reads no file://):
/// `/ring/<token>/index.m3u8` is the ring's live playlist, `/ring/<token>/<segment>` a
/// segment file. Only files the ring lists are served, so nothing else in the data folder
/// is reachable. GLib thread only.
@GLibActor
public final class RingServer {
    /// What the server needs of one ring.
    @GLibActor
    public protocol Ring: AnyObject {
        var folder: URL { get }
        /// Enough is recorded to start playing.
        var isReady: Bool { get }
        /// The playlist, as served to the player (only asked once `isReady`).
        func playlistForPlayer() -> String
        func contains(fileName: String) -> Bool
    }

    /// How long a playlist request waits for the first segments before a 503.
    static let firstSegmentsTimeout: UInt32 = 20_000

    private var server: LoopbackServer?
    private var rings: [String: WeakRing] = [:]
    /// Playlist requests waiting for their ring's first segments.
    private var waiting: [String: [OpaquePointer]] = [:]

    public init() {}

    /// The URL of the ring's playlist. Starts the listener on first use.
    public func register(_ ring: Ring) throws -> (token: String, playlistURL: String) {
        if server == nil {
            server = try LoopbackServer { [weak self] message, path in self?.handle(message, path: path) }
        }
        let token = (0..<16).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
        rings[token] = WeakRing(ring)
        return (token, "\(server!.baseURL)/ring/\(token)/index.m3u8")
    }

    public func unregister(_ token: String) {
        rings[token] = nil
        answerWaiting(token)
    }

    /// Call when the ring changed: answers playlist requests that waited for segments.
    public func ringChanged(_ token: String) {
        guard rings[token]?.ring?.isReady == true else { return }
        answerWaiting(token)
    }

    private func answerWaiting(_ token: String) {
        for message in waiting.removeValue(forKey: token) ?? [] {
            respondPlaylist(message, token: token)
            soup_server_message_unpause(message)
            g_object_unref(UnsafeMutableRawPointer(message))
        }
    }

    private func handle(_ message: OpaquePointer, path: String) {
        let parts = path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        guard parts.count == 3, parts[0] == "ring", let ring = rings[parts[1]]?.ring else {
            soup_server_message_set_status(message, 404, nil)
            return
        }
        let token = parts[1]
        if parts[2] == "index.m3u8" {
            if ring.isReady {
                respondPlaylist(message, token: token)
            } else {
                wait(message, token: token)
            }
            return
        }
        guard ring.contains(fileName: parts[2]),
              let data = FileManager.default.contents(atPath: ring.folder.appendingPathComponent(parts[2]).path) else {
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
        waiting[token, default: []].append(message)
        _ = runAfter(milliseconds: Self.firstSegmentsTimeout) { [weak self] in
            guard let self, var list = self.waiting[token], let index = list.firstIndex(of: message) else { return }
            list.remove(at: index)
            self.waiting[token] = list
            soup_server_message_set_status(message, 503, nil)
            soup_server_message_unpause(message)
            g_object_unref(UnsafeMutableRawPointer(message))
        }
    }

    private func respondPlaylist(_ message: OpaquePointer, token: String) {
        guard let ring = rings[token]?.ring, ring.isReady else {
            soup_server_message_set_status(message, 503, nil)
            return
        }
        let playlist = ring.playlistForPlayer()
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

@GLibActor
private struct WeakRing {
    weak var ring: RingServer.Ring?
    init(_ ring: RingServer.Ring) { self.ring = ring }
}
