import CSoup
import FoundationEssentials
import GLibRuntime

/// A fetched HTTP resource: small bodies only (playlists, keys), read whole.
public struct FetchedResource: Sendable {
    public var status: Int
    public var contentType: String?
    public var body: Data
    /// The URL after redirects: relative URIs in a playlist resolve against it.
    public var finalURL: String
    /// For a 206 answer to a Range request.
    public var contentRange: String?
}

public struct FetchError: Error, Sendable, CustomStringConvertible {
    public var message: String
    /// The HTTP status, when the server answered.
    public var status: Int?
    /// The body passed the reader's limit (`HTTPFetcher.get(_:maxBytes:)`).
    public var tooLarge = false
    public var description: String { status.map { "HTTP \($0): \(message)" } ?? message }
}

/// Fetches URLs with libsoup on the GLib main context: asynchronous, results delivered on
/// the GLib thread. One `SoupSession` for the daemon (connection reuse, one user agent).
/// GLib thread only; the session is released with it.
@GLibActor
public final class HTTPFetcher {
    private let client: SoupClient
    /// Bodies read whole above this are refused: playlists and keys are tiny.
    public nonisolated static let maxBodyBytes = SoupClient.maxBodyBytes

    public init(userAgent: String = "marquee", timeoutSeconds: UInt32 = 15) {
        client = SoupClient(userAgent: userAgent, timeoutSeconds: timeoutSeconds)
    }

    /// GETs `url` with extra request `headers` (validated by the caller: no CR/LF).
    /// `completion` runs once on the GLib thread. Returns a handle that cancels the request.
    @discardableResult
    public func get(_ url: String, headers: [String: String] = [:],
                    completion: @escaping @GLibActor (Result<FetchedResource, FetchError>) -> Void) -> FetchHandle {
        send("GET", url, headers: headers, completion: completion)
    }

    /// GETs `url` as `get`, reading the body in 64 KiB pieces and giving up (`tooLarge`) as
    /// soon as it passes `maxBytes`: an endless or huge body costs at most that much memory.
    @discardableResult
    public func get(_ url: String, headers: [String: String] = [:], maxBytes: Int,
                    completion: @escaping @GLibActor (Result<FetchedResource, FetchError>) -> Void) -> FetchHandle {
        stream(url, headers: headers, completion: completion) { stream, done in stream.readWhole(upTo: maxBytes, completion: done) }
    }

    /// GETs `url` as `get` when it is an HLS playlist; any other body (a progressive file) is
    /// dropped once its first bytes told it apart, and only those come back in `body`.
    @discardableResult
    public func getIfPlaylist(_ url: String, headers: [String: String] = [:],
                              completion: @escaping @GLibActor (Result<FetchedResource, FetchError>) -> Void) -> FetchHandle {
        stream(url, headers: headers, completion: completion) { stream, done in stream.readIfPlaylist(completion: done) }
    }

    /// Opens `url` and lets `read` take the body from its stream; both outcomes reach
    /// `completion` on the GLib thread.
    private func stream(_ url: String, headers: [String: String],
                        completion: @escaping @GLibActor (Result<FetchedResource, FetchError>) -> Void,
                        read: @escaping (OriginStream, @escaping (Result<FetchedResource, FetchError>) -> Void) -> Void) -> FetchHandle {
        let handle = FetchHandle()
        handle.request = client.open(url, headers: headers) { opened in
            switch opened {
            case .failure(let failure):
                GLibActor.assumeIsolated { completion(.failure(failure)) }
            case .success(let stream):
                read(stream) { outcome in GLibActor.assumeIsolated { completion(outcome) } }
            }
        }
        return handle
    }

    /// HEADs `url`: whether the server would serve it, without the body (a health probe).
    @discardableResult
    public func head(_ url: String, headers: [String: String] = [:],
                     completion: @escaping @GLibActor (Result<FetchedResource, FetchError>) -> Void) -> FetchHandle {
        send("HEAD", url, headers: headers, completion: completion)
    }

    /// POSTs `body` to `url`; as `get`, and any status outside 2xx is a failure with `status`.
    @discardableResult
    public func post(_ url: String, body: Data, contentType: String, headers: [String: String] = [:],
                     completion: @escaping @GLibActor (Result<FetchedResource, FetchError>) -> Void) -> FetchHandle {
        send("POST", url, headers: headers, body: (body, contentType), completion: completion)
    }

    private func send(_ method: String, _ url: String, headers: [String: String], body: (Data, String)? = nil,
                      completion: @escaping @GLibActor (Result<FetchedResource, FetchError>) -> Void) -> FetchHandle {
        let handle = FetchHandle()
        handle.request = client.send(method, url, headers: headers, body: body) { outcome in
            GLibActor.assumeIsolated { completion(outcome) }
        }
        return handle
    }
}

/// Cancels a fetch; its completion then reports a cancelled error.
@GLibActor
public final class FetchHandle {
    fileprivate var request: SoupClient.Request?
    public func cancel() { request?.cancel() }
}

