import CCrypto

/// The libcrypto algorithms the library uses, fetched once.
///
/// OpenSSL 3 looks an algorithm up in its provider registry (under a lock) on every init
/// when given `EVP_aes_256_ctr()` and friends; an explicitly fetched `EVP_CIPHER` skips that,
/// which matters for `MediaCipher`, re-initialised on every seek. A fetched algorithm is
/// immutable and safe to share between threads; these are never freed (process lifetime).
enum Algorithms {
    nonisolated(unsafe) private static let fetchedCTR = EVP_CIPHER_fetch(nil, "AES-256-CTR", nil)
    nonisolated(unsafe) private static let fetchedGCM = EVP_CIPHER_fetch(nil, "AES-256-GCM", nil)
    nonisolated(unsafe) private static let fetchedSHA256 = EVP_MD_fetch(nil, "SHA256", nil)

    static func aes256CTR() throws -> OpaquePointer {
        guard let cipher = fetchedCTR else { throw CryptoError.library("fetching AES-256-CTR") }
        return cipher
    }

    static func aes256GCM() throws -> OpaquePointer {
        guard let cipher = fetchedGCM else { throw CryptoError.library("fetching AES-256-GCM") }
        return cipher
    }

    static func sha256() throws -> OpaquePointer {
        guard let digest = fetchedSHA256 else { throw CryptoError.library("fetching SHA-256") }
        return digest
    }
}
