import CCrypto
import FoundationEssentials

/// Seals small secrets with the device key, for storage in the books: each item's media key
/// and its request headers (which may carry bearer tokens, so they are never stored in the
/// clear).
///
/// AES-256-GCM (authenticated: a flipped bit or a wrong key fails to open rather than yielding
/// garbage). Layout: 12-byte random nonce ‖ ciphertext (same length as the secret) ‖ 16-byte
/// tag. A random 96-bit nonce per seal is safe far beyond the library's scale: NIST SP 800-38D
/// allows 2^32 seals under one key.
///
/// The associated data binds a sealed secret to where it belongs (see `context(_:item:)`):
/// it is authenticated but not stored, so a wrapped key copied onto another item's row, or
/// sealed headers moved into the key column, fail to open.
///
/// Immutable; safe to share between threads (each call uses its own cipher context).
public struct KeyWrap: Sendable {
    public static let nonceByteCount = 12
    public static let tagByteCount = 16

    /// What a sealed secret is: part of its associated data.
    public enum Purpose: String, Sendable {
        case mediaKey = "media-key"
        case headers
    }

    private let deviceKey: SymmetricKey

    public init(deviceKey: DeviceKey) { self.deviceKey = deviceKey.key }

    /// The associated data for an item's secret: `marquee.library/<purpose>/<item id>`.
    public static func context(_ purpose: Purpose, item id: String) -> String {
        "marquee.library/\(purpose.rawValue)/\(id)"
    }

    // MARK: Sealing

    /// Seals `secret` bound to `associatedData`.
    public func seal(_ secret: Data, associatedData: String) throws -> Data {
        try secret.withUnsafeBytes { try seal($0, associatedData: associatedData) }
    }

    /// Seals a key (an item's media key) bound to `associatedData`.
    public func seal(key: SymmetricKey, associatedData: String) throws -> Data {
        try key.withUnsafeBytes { try seal($0, associatedData: associatedData) }
    }

    /// Opens what `seal` made with the same device key and associated data.
    /// - Throws: `CryptoError` `.authentication` for the wrong key, the wrong associated data,
    ///   or damaged bytes.
    public func open(_ sealed: Data, associatedData: String) throws -> Data {
        let count = try plaintextCount(sealed)
        var plaintext = Data(count: count)
        try plaintext.withUnsafeMutableBytes { try open(sealed, associatedData: associatedData, into: $0) }
        return plaintext
    }

    /// Opens a sealed key straight into the key's own wiped-on-free storage.
    public func openKey(_ sealed: Data, associatedData: String) throws -> SymmetricKey {
        guard try plaintextCount(sealed) == SymmetricKey.byteCount else {
            throw CryptoError(kind: .authentication, message: "a sealed key has the wrong length")
        }
        return try SymmetricKey { try open(sealed, associatedData: associatedData, into: $0) }
    }

    // MARK: Internals

    private func plaintextCount(_ sealed: Data) throws -> Int {
        let count = sealed.count - Self.nonceByteCount - Self.tagByteCount
        guard count >= 0 else {
            throw CryptoError(kind: .authentication, message: "sealed data is \(sealed.count) bytes, "
                + "shorter than a nonce and a tag")
        }
        return count
    }

    private func seal(_ secret: UnsafeRawBufferPointer, associatedData: String) throws -> Data {
        let nonce = try SecureRandom.bytes(Self.nonceByteCount)
        var sealed = Data(count: Self.nonceByteCount + secret.count + Self.tagByteCount)
        try sealed.withUnsafeMutableBytes { out in
            out.copyBytes(from: nonce)
            let body = UnsafeMutableRawBufferPointer(rebasing: out[Self.nonceByteCount ..< Self.nonceByteCount + secret.count])
            try withContext(encrypt: true, nonce: nonce, associatedData: associatedData) { context in
                try update(context, secret, into: body)
                var extra: Int32 = 0
                var scratch = [UInt8](repeating: 0, count: 16)
                guard EVP_EncryptFinal_ex(context, &scratch, &extra) == 1 else {
                    throw CryptoError.library("AES-256-GCM seal")
                }
                guard EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_AEAD_GET_TAG, Int32(Self.tagByteCount),
                                          out.baseAddress! + Self.nonceByteCount + secret.count) == 1 else {
                    throw CryptoError.library("AES-256-GCM tag")
                }
            }
        }
        return sealed
    }

    private func open(_ sealed: Data, associatedData: String, into plaintext: UnsafeMutableRawBufferPointer) throws {
        try sealed.withUnsafeBytes { input in
            let nonce = Array(input[..<Self.nonceByteCount])
            let body = UnsafeRawBufferPointer(rebasing: input[Self.nonceByteCount ..< input.count - Self.tagByteCount])
            var tag = Array(input[(input.count - Self.tagByteCount)...])
            try withContext(encrypt: false, nonce: nonce, associatedData: associatedData) { context in
                try update(context, body, into: plaintext)
                guard EVP_CIPHER_CTX_ctrl(context, EVP_CTRL_AEAD_SET_TAG, Int32(Self.tagByteCount), &tag) == 1 else {
                    throw CryptoError.library("AES-256-GCM tag")
                }
                var extra: Int32 = 0
                var scratch = [UInt8](repeating: 0, count: 16)
                guard EVP_DecryptFinal_ex(context, &scratch, &extra) == 1 else {
                    // Do not leave unauthenticated plaintext behind in the caller's buffer.
                    if let base = plaintext.baseAddress { OPENSSL_cleanse(base, plaintext.count) }
                    ERR_clear_error()
                    throw CryptoError(kind: .authentication, message: "sealed data does not authenticate "
                        + "(wrong device key, sealed for another item, or damaged)")
                }
            }
        }
    }

    /// A GCM context keyed with the device key and `nonce`, with `associatedData` fed in.
    private func withContext(encrypt: Bool, nonce: [UInt8], associatedData: String,
                             _ body: (OpaquePointer) throws -> Void) throws {
        guard let context = EVP_CIPHER_CTX_new() else { throw CryptoError.library("EVP_CIPHER_CTX_new") }
        defer { EVP_CIPHER_CTX_free(context) }  // frees and wipes the key schedule
        let cipher = try Algorithms.aes256GCM()
        let initialised = deviceKey.withUnsafeBytes { key in
            EVP_CipherInit_ex2(context, cipher, key.baseAddress!.assumingMemoryBound(to: UInt8.self), nonce,
                               encrypt ? 1 : 0, nil)
        }
        guard initialised == 1 else { throw CryptoError.library("AES-256-GCM init") }
        var aad = Array(associatedData.utf8)
        if !aad.isEmpty {
            var ignored: Int32 = 0
            guard EVP_CipherUpdate(context, nil, &ignored, &aad, Int32(aad.count)) == 1 else {
                throw CryptoError.library("AES-256-GCM associated data")
            }
        }
        try body(context)
    }

    /// Runs the cipher over `input` into `output` (same length; GCM has no padding).
    private func update(_ context: OpaquePointer, _ input: UnsafeRawBufferPointer,
                        into output: UnsafeMutableRawBufferPointer) throws {
        guard !input.isEmpty else { return }
        guard input.count <= Int(Int32.max) else {
            throw CryptoError(kind: .invalidArgument, message: "a secret of \(input.count) bytes is too large to seal")
        }
        var written: Int32 = 0
        guard EVP_CipherUpdate(context, output.baseAddress!.assumingMemoryBound(to: UInt8.self), &written,
                               input.baseAddress!.assumingMemoryBound(to: UInt8.self), Int32(input.count)) == 1,
              written == Int32(input.count) else {
            throw CryptoError.library("AES-256-GCM update")
        }
    }
}
