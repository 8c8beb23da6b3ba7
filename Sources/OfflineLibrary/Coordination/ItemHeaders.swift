import ControlAPI
import FoundationEssentials

/// An item's request headers, kept sealed by the device key (they often carry tokens): sent on
/// every request of its download, and `keyHeaders` on top on an HLS item's key requests.
struct ItemHeaders: Codable, Sendable, Equatable {
    var headers: [String: String]
    var keyHeaders: [String: String]?
    /// An HLS item's keys come from here (API-2 §2), its headers sealed with the others.
    var keyService: KeyServiceRequest?

    var isEmpty: Bool { headers.isEmpty && (keyHeaders ?? [:]).isEmpty && keyService == nil }
}
