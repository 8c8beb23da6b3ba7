import Foundation
import OfflineLibrary
import Storage
import XCTest

/// A fresh folder under the system temp dir, removed in tearDown.
class LibraryTempDirTestCase: XCTestCase {
    private(set) var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("marquee-library-tests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        if let directory { try? FileManager.default.removeItem(at: directory) }
    }

    func url(_ name: String) -> URL { directory.appendingPathComponent(name) }
    func path(_ name: String) -> String { url(name).path }
}

/// Deterministic pseudo-random bytes (SplitMix64), so a failing case can be replayed.
struct SeededBytes: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9e3779b97f4a7c15
        var z = state
        z = (z ^ (z >> 30)) &* 0xbf58476d1ce4e5b9
        z = (z ^ (z >> 27)) &* 0x94d049bb133111eb
        return z ^ (z >> 31)
    }

    mutating func data(_ count: Int) -> Data {
        var bytes = [UInt8](repeating: 0, count: count)
        var i = 0
        while i < count {
            var word = next()
            for _ in 0 ..< 8 where i < count {
                bytes[i] = UInt8(truncatingIfNeeded: word)
                word >>= 8
                i += 1
            }
        }
        return Data(bytes)
    }
}

/// A `FileProgressRecorder` in memory, which can be told to fail.
final class MemoryProgressRecorder: FileProgressRecorder {
    var storedBytes: Int64 = 0
    var complete = false
    var chunks: [Int: Data] = [:]
    var calls: [String] = []
    var failNext: Error?

    func recordProgress(storedBytes: Int64, newChunks: [ChunkChecksum], complete: Bool) throws {
        if let error = failNext {
            failNext = nil
            throw error
        }
        calls.append("progress \(storedBytes) chunks \(newChunks.map(\.index)) complete \(complete)")
        self.storedBytes = storedBytes
        self.complete = complete
        for chunk in newChunks { chunks[chunk.index] = chunk.sha256 }
    }

    func recordRestart() throws {
        calls.append("restart")
        storedBytes = 0
        complete = false
        chunks = [:]
    }

    /// The chunks in order, as `LibraryBooks.chunkChecksums` gives them.
    var orderedChunks: [Data] { (0 ..< (chunks.keys.max().map { $0 + 1 } ?? 0)).map { chunks[$0] ?? Data() } }
}

struct InjectedFailure: Error {}

/// SHA-256 of each 1 MiB chunk of `plaintext`, computed in one call per chunk.
func expectedChunkChecksums(_ plaintext: Data) throws -> [Data] {
    var checksums: [Data] = []
    var offset = 0
    while offset < plaintext.count {
        let end = min(offset + EncryptedFile.chunkSize, plaintext.count)
        checksums.append(try SHA256.hash(plaintext.subdata(in: offset ..< end)))
        offset = end
    }
    return checksums
}

extension Data {
    init(hex: String) {
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            bytes.append(UInt8(hex[index ..< next], radix: 16)!)
            index = next
        }
        self.init(bytes)
    }

    var hex: String { map { String(format: "%02x", $0) }.joined() }
}

extension DownloadDestination {
    func append(_ data: Data) throws {
        try data.withUnsafeBytes { try append($0) }
    }
}

extension RandomAccessMedia {
    func readData(at offset: Int64, count: Int) throws -> Data {
        var data = Data(count: count)
        let read = try data.withUnsafeMutableBytes { try self.read(at: offset, into: $0) }
        return data.prefix(read)
    }
}

/// Asserts that `body` throws an error of type `E` and returns it.
@discardableResult
func assertThrows<E: Error, T>(_ type: E.Type, _ body: @autoclosure () throws -> T,
                               file: StaticString = #filePath, line: UInt = #line) -> E? {
    do {
        _ = try body()
        XCTFail("expected \(E.self)", file: file, line: line)
    } catch let error as E {
        return error
    } catch {
        XCTFail("expected \(E.self), got \(error)", file: file, line: line)
    }
    return nil
}
