#if canImport(Glibc)
import Glibc
#endif
import FoundationEssentials

/// One open file descriptor with the positional I/O the encrypted files need: `pread` and
/// `pwrite` (no shared file position, so concurrent reads from several threads are safe),
/// looping over short transfers and EINTR. Closed in `close()` or `deinit`.
///
/// Sendable for reads: after `init` the descriptor does not change until `close()`, which
/// the owner calls only when no read is running.
final class OpenFile: @unchecked Sendable {
    let path: String
    private var fd: Int32

    /// Opens `path`; `create` makes it (mode 0600: media ciphertext, the daemon's alone).
    init(path: String, writable: Bool, create: Bool = false) throws {
        self.path = path
        var flags = (writable ? O_RDWR : O_RDONLY) | O_CLOEXEC
        if create { flags |= O_CREAT }
        fd = Glibc.open(path, flags, 0o600)
        guard fd >= 0 else { throw MediaFileError.system(path, "open", errno) }
    }

    deinit { close() }

    func close() {
        guard fd >= 0 else { return }
        _ = Glibc.close(fd)
        fd = -1
    }

    func size() throws -> Int64 {
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw MediaFileError.system(path, "stat", errno) }
        return Int64(info.st_size)
    }

    /// Reads until `buffer` is full or the file ends; returns how many bytes were read.
    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws -> Int {
        guard let base = buffer.baseAddress else { return 0 }
        var done = 0
        while done < buffer.count {
            let n = pread(fd, base + done, buffer.count - done, off_t(offset) + off_t(done))
            if n < 0 {
                if errno == EINTR { continue }
                throw MediaFileError.system(path, "read", errno)
            }
            if n == 0 { break }
            done += n
        }
        return done
    }

    func write(_ bytes: UnsafeRawBufferPointer, at offset: Int64) throws {
        guard let base = bytes.baseAddress else { return }
        var done = 0
        while done < bytes.count {
            let n = pwrite(fd, base + done, bytes.count - done, off_t(offset) + off_t(done))
            if n < 0 {
                if errno == EINTR { continue }
                throw MediaFileError.system(path, "write", errno)
            }
            done += n
        }
    }

    func truncate(to length: Int64) throws {
        guard ftruncate(fd, off_t(length)) == 0 else { throw MediaFileError.system(path, "truncate", errno) }
    }

    /// Makes written data durable. `fdatasync`, not `fsync`: it flushes the data and the
    /// metadata needed to read it back (the size), skipping only timestamps.
    func syncData() throws {
        while fdatasync(fd) != 0 {
            if errno == EINTR { continue }
            throw MediaFileError.system(path, "sync", errno)
        }
    }
}
