import FoundationEssentials
import GLibRuntime

/// An encrypted copy served on loopback, opened on its first read (on the server's thread),
/// so publishing it costs the GLib thread no disk access and idle items hold no descriptor.
final class LazyEncryptedMedia: RandomAccessMedia, @unchecked Sendable {
    let size: Int64
    private let url: URL
    private let key: SymmetricKey
    private let iv: [UInt8]
    private let lock = ThreadLock()
    private var reader: EncryptedFileReader?

    init(url: URL, key: SymmetricKey, iv: [UInt8], size: Int64) {
        self.url = url
        self.key = key
        self.iv = iv
        self.size = size
    }

    func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        let opened = try lock.withLock { () throws -> EncryptedFileReader in
            if let reader { return reader }
            let made = try EncryptedFileReader(url: url, key: key, iv: iv, size: size)
            reader = made
            return made
        }
        return try opened.read(at: offset, into: buffer)
    }
}
