import CCrypto
import FoundationEssentials

/// A failure of the library's cryptography. A plain value, safe to log: messages name the
/// operation and OpenSSL's reason, never key material or plaintext.
public struct CryptoError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// A libcrypto call failed (out of memory, no entropy, a provider missing).
        case library
        /// Sealed data did not authenticate: the wrong key or associated data, or damaged bytes.
        case authentication
        /// A caller passed something the primitive cannot take (a key of the wrong size).
        case invalidArgument
    }

    public var kind: Kind
    public var message: String

    public init(kind: Kind, message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }

    /// A `.library` error for `operation`, with the reasons on OpenSSL's thread-local error
    /// queue (which this drains, so a later failure does not report a stale reason).
    static func library(_ operation: String) -> CryptoError {
        var reasons: [String] = []
        while case let code = ERR_get_error(), code != 0 {
            var text = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &text, text.count)
            reasons.append(String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        let reason = reasons.isEmpty ? "no reason given" : reasons.joined(separator: "; ")
        return CryptoError(kind: .library, message: "\(operation) failed: \(reason)")
    }
}
