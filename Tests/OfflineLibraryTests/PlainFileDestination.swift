import Foundation
import OfflineLibrary
#if canImport(Glibc)
import Glibc
#endif

/// The simplest `DownloadDestination` that keeps the durability rule: plaintext in a file,
/// the acknowledged length in a sidecar `.offset` file. `commit()` fsyncs the data, then
/// replaces the sidecar (written, fsynced, renamed); opening it again truncates the data to
/// the sidecar's length, dropping bytes that were never acknowledged. Tests only: the library
/// stores media encrypted.
final class PlainFileDestination: DownloadDestination {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    let url: URL
    private let offsetURL: URL
    private let fd: Int32
    private(set) var storedBytes: Int64
    private(set) var pendingBytes: Int64 = 0
    private(set) var commits = 0
    private(set) var restarts = 0

    init(url: URL) throws {
        self.url = url
        offsetURL = url.appendingPathExtension("offset")
        fd = open(url.path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw Failure(description: "open \(url.path): \(String(cString: strerror(errno)))") }
        storedBytes = (try? String(contentsOf: offsetURL, encoding: .utf8)).flatMap { Int64($0) } ?? 0
        guard ftruncate(fd, off_t(storedBytes)) == 0 else { throw Failure(description: "ftruncate failed") }
    }

    deinit { close(fd) }

    func append(_ bytes: UnsafeRawBufferPointer) throws {
        var written = 0
        while written < bytes.count {
            let count = pwrite(fd, bytes.baseAddress! + written, bytes.count - written,
                               off_t(storedBytes + pendingBytes) + off_t(written))
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { throw Failure(description: "pwrite: \(String(cString: strerror(errno)))") }
            written += count
        }
        pendingBytes += Int64(bytes.count)
    }

    func commit() throws {
        guard fsync(fd) == 0 else { throw Failure(description: "fsync: \(String(cString: strerror(errno)))") }
        try record(storedBytes + pendingBytes)
        storedBytes += pendingBytes
        pendingBytes = 0
        commits += 1
    }

    func restart() throws {
        try record(0)
        guard ftruncate(fd, 0) == 0 else { throw Failure(description: "ftruncate failed") }
        storedBytes = 0
        pendingBytes = 0
        restarts += 1
    }

    /// Writes `offset` to the sidecar durably: a new file, fsynced, renamed over the old one.
    private func record(_ offset: Int64) throws {
        let temporary = offsetURL.appendingPathExtension("new")
        let sidecar = open(temporary.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard sidecar >= 0 else { throw Failure(description: "open sidecar failed") }
        defer { close(sidecar) }
        let text = Array("\(offset)".utf8)
        guard write(sidecar, text, text.count) == text.count, fsync(sidecar) == 0,
              rename(temporary.path, offsetURL.path) == 0 else { throw Failure(description: "writing the sidecar failed") }
    }
}

/// A destination whose writes fail once `failAfter` bytes are stored: a full disk.
final class FailingDestination: DownloadDestination {
    private let failAfter: Int64
    private(set) var storedBytes: Int64 = 0
    private(set) var pendingBytes: Int64 = 0

    init(failAfter: Int64) { self.failAfter = failAfter }

    func append(_ bytes: UnsafeRawBufferPointer) throws {
        guard storedBytes + pendingBytes + Int64(bytes.count) <= failAfter else {
            throw PlainFileDestination.Failure(description: "no space left on device")
        }
        pendingBytes += Int64(bytes.count)
    }

    func commit() throws {
        storedBytes += pendingBytes
        pendingBytes = 0
    }

    func restart() throws {
        storedBytes = 0
        pendingBytes = 0
    }
}
