import CCrypto
import FoundationEssentials

/// A 256-bit secret key: the device key, or an item's media key.
///
/// Held in its own heap allocation that is wiped (`OPENSSL_cleanse`) when the key is freed,
/// so a key does not linger in freed memory the way a copied `[UInt8]` would. Its
/// `description` is redacted: interpolating a key into a log line prints no key bytes.
/// Immutable after creation, so it is Sendable and may be shared between threads.
public final class SymmetricKey: @unchecked Sendable, CustomStringConvertible {
    /// AES-256: the size of every key in the library.
    public static let byteCount = 32

    private let storage: UnsafeMutableRawBufferPointer

    /// A fresh random key.
    public convenience init() throws {
        try self.init { try SecureRandom.fill($0) }
    }

    /// A key from exactly `byteCount` bytes.
    public convenience init(bytes: some Collection<UInt8>) throws {
        guard bytes.count == Self.byteCount else {
            throw CryptoError(kind: .invalidArgument,
                              message: "a key is \(Self.byteCount) bytes, not \(bytes.count)")
        }
        self.init(unchecked: bytes)
    }

    private init(unchecked bytes: some Collection<UInt8>) {
        storage = .allocate(byteCount: Self.byteCount, alignment: 16)
        storage.copyBytes(from: bytes)
    }

    /// A key whose bytes `fill` writes in place (from a file or a decryption), so they are
    /// never in an intermediate buffer.
    init(fill: (UnsafeMutableRawBufferPointer) throws -> Void) throws {
        // Filled before it becomes `storage`: a throw then leaves the object uninitialised,
        // so `deinit` does not run and the buffer is freed here, once.
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.byteCount, alignment: 16)
        buffer.initializeMemory(as: UInt8.self, repeating: 0)
        do {
            try fill(buffer)
        } catch {
            OPENSSL_cleanse(buffer.baseAddress, buffer.count)
            buffer.deallocate()
            throw error
        }
        storage = buffer
    }

    deinit {
        OPENSSL_cleanse(storage.baseAddress, storage.count)
        storage.deallocate()
    }

    /// The key bytes, for a libcrypto call. Do not copy them out.
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeRawBufferPointer(storage))
    }

    /// Compares in constant time (`CRYPTO_memcmp`): no timing hint of where two keys differ.
    public func hasSameBytes(as other: SymmetricKey) -> Bool {
        CRYPTO_memcmp(storage.baseAddress, other.storage.baseAddress, Self.byteCount) == 0
    }

    public var description: String { "SymmetricKey(\(Self.byteCount) bytes, redacted)" }
}
