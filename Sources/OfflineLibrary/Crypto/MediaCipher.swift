import CCrypto
import FoundationEssentials

/// AES-256-CTR over a media file, at any byte offset: the same call encrypts and decrypts.
///
/// The 16-byte IV is the initial counter block, all 128 bits of it, big-endian, incremented
/// by one per 16-byte block with carry through all 128 bits, as OpenSSL's CTR mode counts.
/// Byte `offset` of the file is therefore keystream byte `offset % 16` of the block whose
/// counter is `IV + offset / 16` (mod 2^128), which is what makes a seek cheap: no bytes
/// before `offset` are processed. The ciphertext is exactly as long as the plaintext.
///
/// CTR gives confidentiality, not integrity: a flipped ciphertext bit flips the same plaintext
/// bit. The library detects damage with per-chunk SHA-256 checksums of the plaintext
/// (`EncryptedFileReader.verify`); a key or counter reused for two plaintexts would leak their
/// XOR, which is why every file gets its own random IV and every item its own random key.
///
/// Speed: one `EVP_CIPHER_CTX` per instance, keyed once; a call that continues where the last
/// one ended only feeds bytes through it, and any other offset re-initialises only the
/// counter (the key schedule is kept). See `MediaCipherTests.testThroughput` for MB/s.
///
/// Threading: not thread-safe (the context carries the keystream position). Use one
/// instance per thread, or guard it with a lock. Creating one costs a context allocation and
/// a key schedule, microseconds.
public final class MediaCipher {
    public static let ivByteCount = 16

    private let context: OpaquePointer
    private let iv: [UInt8]
    /// The file offset the context's keystream is positioned at; nil before the first call
    /// and after a failed one.
    private var continuationOffset: Int64?

    /// - Parameters:
    ///   - key: the item's media key.
    ///   - iv: this file's 16 random bytes (`randomIV()`), stored beside it in the books.
    public init(key: SymmetricKey, iv: [UInt8]) throws {
        guard iv.count == Self.ivByteCount else {
            throw CryptoError(kind: .invalidArgument, message: "an IV is \(Self.ivByteCount) bytes, not \(iv.count)")
        }
        guard let context = EVP_CIPHER_CTX_new() else { throw CryptoError.library("EVP_CIPHER_CTX_new") }
        self.context = context
        self.iv = iv
        let cipher = try Algorithms.aes256CTR()
        let keyed = key.withUnsafeBytes { bytes in
            EVP_CipherInit_ex2(context, cipher, bytes.baseAddress!.assumingMemoryBound(to: UInt8.self), iv, 1, nil)
        }
        guard keyed == 1 else {
            EVP_CIPHER_CTX_free(context)
            throw CryptoError.library("AES-256-CTR init")
        }
        continuationOffset = 0
    }

    deinit {
        // Frees the context and wipes the key schedule it holds.
        EVP_CIPHER_CTX_free(context)
    }

    /// A fresh random IV for a new file.
    public static func randomIV() throws -> [UInt8] {
        try SecureRandom.bytes(ivByteCount)
    }

    /// Encrypts or decrypts `buffer` in place, as the bytes at `offset` of the file.
    public func apply(_ buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws {
        precondition(offset >= 0, "a negative file offset")
        guard let base = buffer.baseAddress, !buffer.isEmpty else { return }
        if continuationOffset != offset {
            continuationOffset = nil
            try position(at: offset)
        }
        continuationOffset = nil
        // EVP takes an int length: run large buffers through in 1 GiB pieces.
        var done = 0
        while done < buffer.count {
            let piece = min(buffer.count - done, 1 << 30)
            let bytes = (base + done).assumingMemoryBound(to: UInt8.self)
            var written: Int32 = 0
            guard EVP_CipherUpdate(context, bytes, &written, bytes, Int32(piece)) == 1, written == Int32(piece) else {
                throw CryptoError.library("AES-256-CTR update")
            }
            done += piece
        }
        continuationOffset = offset + Int64(buffer.count)
    }

    /// Sets the counter to `IV + offset / 16` and consumes `offset % 16` keystream bytes.
    private func position(at offset: Int64) throws {
        var counter = iv
        var carry = UInt64(offset / 16)
        var index = counter.count - 1
        while carry != 0 && index >= 0 {
            let sum = UInt64(counter[index]) + (carry & 0xff)
            counter[index] = UInt8(truncatingIfNeeded: sum)
            carry = (carry >> 8) + (sum >> 8)
            index -= 1
        }
        // No cipher and no key: OpenSSL keeps both (and the key schedule) and resets the
        // counter and the position within the block.
        guard EVP_CipherInit_ex2(context, nil, nil, counter, 1, nil) == 1 else {
            throw CryptoError.library("AES-256-CTR counter")
        }
        let skip = Int32(offset % 16)
        if skip > 0 {
            let zeros = [UInt8](repeating: 0, count: 16)
            var discarded = [UInt8](repeating: 0, count: 16)
            var written: Int32 = 0
            guard EVP_CipherUpdate(context, &discarded, &written, zeros, skip) == 1 else {
                throw CryptoError.library("AES-256-CTR update")
            }
        }
    }
}
