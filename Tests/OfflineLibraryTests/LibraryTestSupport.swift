import Foundation
import OfflineLibrary
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
