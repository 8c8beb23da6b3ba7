import CCrypto
import FoundationEssentials

/// An incremental SHA-256 digest (libcrypto's EVP): the library's chunk checksums.
///
/// Not thread-safe; one instance per running digest. `finalize()` returns the digest and
/// starts over, so one instance serves chunk after chunk without reallocating.
public final class SHA256 {
    public static let byteCount = 32

    private let context: OpaquePointer

    public init() throws {
        guard let context = EVP_MD_CTX_new() else { throw CryptoError.library("EVP_MD_CTX_new") }
        self.context = context
        do {
            try reset()
        } catch {
            EVP_MD_CTX_free(context)
            throw error
        }
    }

    deinit { EVP_MD_CTX_free(context) }

    /// Forgets everything fed so far.
    public func reset() throws {
        guard EVP_DigestInit_ex2(context, try Algorithms.sha256(), nil) == 1 else {
            throw CryptoError.library("SHA-256 init")
        }
    }

    public func update(_ bytes: UnsafeRawBufferPointer) throws {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        guard EVP_DigestUpdate(context, base, bytes.count) == 1 else { throw CryptoError.library("SHA-256 update") }
    }

    public func update(_ bytes: Data) throws {
        try bytes.withUnsafeBytes { try update($0) }
    }

    /// The digest of everything fed since the last reset; the instance is then reset.
    public func finalize() throws -> Data {
        var digest = Data(count: Self.byteCount)
        var length: UInt32 = 0
        let ok = digest.withUnsafeMutableBytes {
            EVP_DigestFinal_ex(context, $0.baseAddress!.assumingMemoryBound(to: UInt8.self), &length)
        }
        guard ok == 1, length == UInt32(Self.byteCount) else { throw CryptoError.library("SHA-256 final") }
        try reset()
        return digest
    }

    /// The digest of `bytes` in one call.
    public static func hash(_ bytes: UnsafeRawBufferPointer) throws -> Data {
        let digest = try SHA256()
        try digest.update(bytes)
        return try digest.finalize()
    }

    public static func hash(_ bytes: Data) throws -> Data {
        try bytes.withUnsafeBytes { try hash($0) }
    }
}
