import ControlAPI
import GLibRuntime
import HTTPFetch

/// `--url-resolver` for the player: asks for the URL (and headers) of a content id on a
/// thread of its own, with its own libsoup client, and answers on the GLib thread, which
/// never waits for the resolver. Refusals (its status), replies that are not
/// `{"uri", "headers"?}` and failures are `resolver_error`. GLib thread.
@GLibActor
final class URLResolver {
    let client: URLResolverClient
    private let thread = ServiceThread(name: "marquee-resolver")
    private let soup = ResolverSoup()

    init(endpoint: String) {
        client = URLResolverClient(endpoint: endpoint)
    }

    func resolve(_ query: ResolverQuery, completion: @escaping @Sendable @GLibActor (Result<ResolvedURL, APIError>) -> Void) {
        let client = client
        let soup = soup
        thread.perform {
            client.resolve(query, using: soup.client) { result in
                let outcome = result.mapError { APIError(.resolverError, $0.message) }
                Task { @GLibActor in completion(outcome) }
            }
        }
    }
}

/// The resolver thread's libsoup client, made there on first use (a SoupSession belongs to
/// the context it was made on) and used only there.
private final class ResolverSoup: @unchecked Sendable {
    private var made: SoupClient?
    /// The resolver's thread only.
    var client: SoupClient {
        if let made { return made }
        let client = SoupClient(userAgent: "marquee/\(MarqueeVersion.current)", timeoutSeconds: 15)
        made = client
        return client
    }
}
