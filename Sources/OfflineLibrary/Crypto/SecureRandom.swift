import CCrypto
import FoundationEssentials

/// Bytes from OpenSSL's CSPRNG (`RAND_bytes`, seeded from the kernel's getrandom): keys,
/// IVs and nonces. Not Swift's `SystemRandomNumberGenerator`, so every secret in the library
/// comes from the one generator the cryptography is reviewed against.
public enum SecureRandom {
    /// `count` random bytes. Throws when the generator cannot be seeded (it then returns no
    /// bytes rather than weak ones).
    public static func bytes(_ count: Int) throws -> [UInt8] {
        precondition(count >= 0, "a negative byte count")
        var bytes = [UInt8](repeating: 0, count: count)
        try bytes.withUnsafeMutableBytes { try fill($0) }
        return bytes
    }

    /// Fills `buffer` with random bytes in place (for secrets that must not be copied).
    public static func fill(_ buffer: UnsafeMutableRawBufferPointer) throws {
        guard let base = buffer.baseAddress, !buffer.isEmpty else { return }
        // RAND_bytes takes an int: fill larger buffers in pieces.
        var done = 0
        while done < buffer.count {
            let piece = min(buffer.count - done, Int(Int32.max))
            guard RAND_bytes(base.advanced(by: done).assumingMemoryBound(to: UInt8.self), Int32(piece)) == 1 else {
                throw CryptoError.library("RAND_bytes")
            }
            done += piece
        }
    }
}
