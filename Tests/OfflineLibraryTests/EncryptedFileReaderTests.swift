import Foundation
import GLibRuntime
import OfflineLibrary
import XCTest

final class EncryptedFileReaderTests: LibraryTempDirTestCase {
    private let key = try! SymmetricKey()
    private let iv = try! MediaCipher.randomIV()

    private func write(_ plaintext: Data) throws -> EncryptedFileReader {
        let file = try EncryptedFile(url: url("media.enc"), key: key, iv: iv, storedBytes: 0, recorder: MemoryProgressRecorder())
        try file.append(plaintext)
        try file.finish()
        return try EncryptedFileReader(url: url("media.enc"), key: key, iv: iv)
    }

    func testConcurrentReadsFromSeveralThreads() throws {
        var random = SeededBytes(seed: 9)
        let plaintext = random.data(4 << 20)
        let media = try write(plaintext)
        let failures = ThreadLock()
        nonisolated(unsafe) var mismatches: [String] = []
        DispatchQueue.concurrentPerform(iterations: 6) { thread in
            var random = SeededBytes(seed: UInt64(100 + thread))
            var offset = Int.random(in: 0 ..< plaintext.count, using: &random)
            for step in 0 ..< 300 {
                // Runs of sequential reads (a player streaming) broken by seeks.
                if step % 10 == 0 { offset = Int.random(in: 0 ..< plaintext.count, using: &random) }
                let count = Int.random(in: 1 ... 65536, using: &random)
                let expected = plaintext.subdata(in: offset ..< min(plaintext.count, offset + count))
                let actual = try? media.readData(at: Int64(offset), count: count)
                if actual != expected { failures.withLock { mismatches.append("thread \(thread) read \(count) at \(offset)") } }
                offset = min(plaintext.count - 1, offset + count)
            }
        }
        XCTAssertEqual(mismatches, [])
    }

    func testAKeyOrIVThatDoesNotMatchReadsNoise() throws {
        var random = SeededBytes(seed: 1)
        let plaintext = random.data(1000)
        _ = try write(plaintext)
        let wrongKey = try EncryptedFileReader(url: url("media.enc"), key: SymmetricKey(), iv: iv)
        XCTAssertNotEqual(try wrongKey.readData(at: 0, count: 1000), plaintext)
        let wrongIV = try EncryptedFileReader(url: url("media.enc"), key: key, iv: MediaCipher.randomIV())
        XCTAssertNotEqual(try wrongIV.readData(at: 0, count: 1000), plaintext)
    }

    func testAMissingFileIsAnError() throws {
        let error = assertThrows(MediaFileError.self, try EncryptedFileReader(url: url("none.enc"), key: key, iv: iv))
        XCTAssertEqual(error?.errno, ENOENT)
    }

    /// Compares the ways to make reads thread-safe: the reader's cipher pool, one cipher behind
    /// a lock, a new cipher per read; best of 3 rounds, at 2 and 4 threads. Prints; asserts
    /// nothing (the machine is shared, so the numbers are noisy).
    func testConcurrentReadThroughput() throws {
        let size = 32 << 20
        var random = SeededBytes(seed: 2)
        let plaintext = random.data(size)
        let media = try write(plaintext)
        let readsPerThread = 1500
        let readSize = 64 << 10
        let fd = Glibc.open(url("media.enc").path, O_RDONLY)
        defer { Glibc.close(fd) }
        nonisolated(unsafe) let sharedCipher = try MediaCipher(key: key, iv: iv)
        let lock = ThreadLock()
        let (key, iv) = (self.key, self.iv)

        func measure(threads: Int, _ read: @escaping @Sendable (Int64, UnsafeMutableRawBufferPointer) throws -> Void) -> Double {
            let start = DispatchTime.now()
            DispatchQueue.concurrentPerform(iterations: threads) { thread in
                let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: readSize, alignment: 16)
                defer { buffer.deallocate() }
                var random = SeededBytes(seed: UInt64(thread))
                var offset = Int64(0)
                for step in 0 ..< readsPerThread {
                    // Sequential runs of 8 reads, then a seek: a player streaming with seeks.
                    if step % 8 == 0 { offset = Int64.random(in: 0 ..< Int64(size - 8 * readSize), using: &random) / 4096 * 4096 }
                    try! read(offset, buffer)
                    offset += Int64(readSize)
                }
            }
            let seconds = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
            return Double(threads * readsPerThread * readSize) / 1e6 / seconds
        }

        let strategies: [(String, @Sendable (Int64, UnsafeMutableRawBufferPointer) throws -> Void)] = [
            ("pool", { offset, buffer in _ = try media.read(at: offset, into: buffer) }),
            ("one cipher + lock", { offset, buffer in
                _ = pread(fd, buffer.baseAddress, buffer.count, off_t(offset))
                try lock.withLock { try sharedCipher.apply(buffer, at: offset) }
            }),
            ("new cipher per read", { offset, buffer in
                _ = pread(fd, buffer.baseAddress, buffer.count, off_t(offset))
                try MediaCipher(key: key, iv: iv).apply(buffer, at: offset)
            }),
        ]
        for threads in [1, 2, 4] {
            var best = [Double](repeating: 0, count: strategies.count)
            for _ in 0 ..< 3 {
                for (index, strategy) in strategies.enumerated() {
                    best[index] = max(best[index], measure(threads: threads, strategy.1))
                }
            }
            print("EncryptedFileReader, \(threads) threads x \(readsPerThread) reads of 64 KiB, best of 3 (MB/s): "
                  + zip(strategies, best).map { "\($0.0.0) \(Int($0.1))" }.joined(separator: ", "))
        }
        let creations = 20_000
        let start = DispatchTime.now()
        for _ in 0 ..< creations { _ = try MediaCipher(key: key, iv: iv) }
        print("MediaCipher creation: \((DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / UInt64(creations)) ns each")
        XCTAssertEqual(try media.readData(at: 12345, count: 100), plaintext.subdata(in: 12345 ..< 12445))
    }
}
