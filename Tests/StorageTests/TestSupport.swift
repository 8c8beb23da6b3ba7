import Foundation
import XCTest
@testable import Storage

/// A fresh folder under the system temp dir, removed in tearDown.
class TempDirTestCase: XCTestCase {
    private(set) var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("marquee-storage-tests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        if let directory { try? FileManager.default.removeItem(at: directory) }
    }

    func path(_ name: String = "test.sqlite3") -> String { directory.appendingPathComponent(name).path }

    func openDatabase(_ name: String = "test.sqlite3") throws -> SQLiteDatabase {
        try SQLiteDatabase(path: path(name))
    }
}

/// Asserts that `body` throws a StorageError and returns it.
@discardableResult
func assertStorageError<T>(_ body: @autoclosure () throws -> T, file: StaticString = #filePath,
                           line: UInt = #line) -> StorageError? {
    do {
        _ = try body()
        XCTFail("expected a StorageError", file: file, line: line)
        return nil
    } catch let error as StorageError {
        return error
    } catch {
        XCTFail("expected a StorageError, got \(error)", file: file, line: line)
        return nil
    }
}

/// A clock the test moves by hand; whole seconds so dates survive the REAL round trip exactly.
final class ManualClock {
    var now = Date(timeIntervalSince1970: 1_700_000_000)
    func advance(_ seconds: TimeInterval) { now += seconds }
}

func event(_ n: Int) -> Data { Data(#"{"type":"heartbeat","n":\#(n)}"#.utf8) }
