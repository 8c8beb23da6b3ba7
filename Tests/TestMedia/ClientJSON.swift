import Foundation
import MarqueeClient

// The tests read replies and events as JSONSerialization trees (NSNull, NSNumber read as Int,
// Double or Bool alike), as scripts see JSON. MarqueeClient's own `jsonTree()` cannot: it is
// linked into the daemon, which loads only FoundationEssentials.
extension HTTPResponse {
    /// The body parsed with JSONSerialization (fragments allowed).
    public func json() throws -> Any {
        do {
            return try JSONSerialization.jsonObject(with: body, options: [.fragmentsAllowed])
        } catch {
            throw ClientError.protocolError("response body is not JSON: \(text.prefix(200))")
        }
    }
}

extension SSEEvent {
    /// `data` parsed with JSONSerialization (Marquee sends `{"seq", "type", "data"}`).
    public func json() throws -> Any {
        do {
            return try JSONSerialization.jsonObject(with: Data(data.utf8), options: [.fragmentsAllowed])
        } catch {
            throw ClientError.protocolError("event data is not JSON: \(data.prefix(200))")
        }
    }
}
