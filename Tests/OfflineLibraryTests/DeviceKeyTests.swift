import Foundation
import OfflineLibrary
import XCTest

final class DeviceKeyTests: LibraryTempDirTestCase {
    private func mode(_ name: String) throws -> Int {
        try XCTUnwrap(FileManager.default.attributesOfItem(atPath: path(name))[.posixPermissions] as? Int)
    }

    func testCreatesA0600KeyOnceAndLoadsItAfterwards() throws {
        let keyPath = path(DeviceKey.fileName)
        let created = try DeviceKey.loadOrCreate(at: keyPath)
        XCTAssertEqual(try Data(contentsOf: url(DeviceKey.fileName)).count, 32)
        XCTAssertEqual(try mode(DeviceKey.fileName), 0o600)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.path), [DeviceKey.fileName],
                       "no temporary file left")
        XCTAssertTrue(try DeviceKey.loadOrCreate(at: keyPath).key.hasSameBytes(as: created.key))
        XCTAssertTrue(try DeviceKey.load(keyFile: keyPath).key.hasSameBytes(as: created.key))
        XCTAssertEqual(try Data(contentsOf: url(DeviceKey.fileName)),
                       created.key.withUnsafeBytes { Data($0) }, "the file is the raw key")
    }

    func testCreatedWhateverTheUmask() throws {
        let old = umask(0o000)
        defer { umask(old) }
        _ = try DeviceKey.loadOrCreate(at: path("k"))
        XCTAssertEqual(try mode("k"), 0o600)
    }

    func testConcurrentFirstStartsAgreeOnOneKey() throws {
        let keyPath = path(DeviceKey.fileName)
        nonisolated(unsafe) let keys = UnsafeMutableBufferPointer<DeviceKey?>.allocate(capacity: 8)
        keys.initialize(repeating: nil)
        defer { keys.deallocate() }
        DispatchQueue.concurrentPerform(iterations: 8) { keys[$0] = try? DeviceKey.loadOrCreate(at: keyPath) }
        let first = try XCTUnwrap(keys[0])
        for key in keys { XCTAssertTrue(try XCTUnwrap(key).key.hasSameBytes(as: first.key)) }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.path), [DeviceKey.fileName])
    }

    func testRefusesAFileOthersCanRead() throws {
        let keyPath = path(DeviceKey.fileName)
        _ = try DeviceKey.loadOrCreate(at: keyPath)
        for permissions in [0o644, 0o640, 0o604, 0o602, 0o620] {
            try FileManager.default.setAttributes([.posixPermissions: permissions], ofItemAtPath: keyPath)
            let error = assertThrows(KeyFileError.self, try DeviceKey.loadOrCreate(at: keyPath))
            XCTAssertTrue("\(error!)".contains("chmod 600"), "\(error!)")
            XCTAssertTrue("\(error!)".contains("(mode 0" + String(permissions, radix: 8) + ")"), "\(error!)")
            XCTAssertEqual("\(error!)".contains("readable by group or others"), permissions & 0o044 != 0, "\(error!)")
            XCTAssertNotNil(assertThrows(KeyFileError.self, try DeviceKey.load(keyFile: keyPath)))
        }
        // Owner-only read is fine (a key file kept read-only).
        try FileManager.default.setAttributes([.posixPermissions: 0o400], ofItemAtPath: keyPath)
        XCTAssertNoThrow(try DeviceKey.load(keyFile: keyPath))
    }

    func testRefusesAFileOfTheWrongSizeAndLeavesItAlone() throws {
        for size in [0, 31, 33, 64] {
            let keyPath = path("key-\(size)")
            let content = Data(repeating: 0xab, count: size)
            XCTAssertTrue(FileManager.default.createFile(atPath: keyPath, contents: content, attributes: [.posixPermissions: 0o600]))
            let error = assertThrows(KeyFileError.self, try DeviceKey.loadOrCreate(at: keyPath))
            XCTAssertTrue("\(error!)".contains("is \(size) bytes"), "\(error!)")
            XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: keyPath)), content, "never rewritten")
        }
    }

    func testAMissingKeyFileIsAnErrorNotCreated() throws {
        let keyPath = path("elsewhere.key")
        let error = assertThrows(KeyFileError.self, try DeviceKey.load(keyFile: keyPath))
        XCTAssertTrue("\(error!)".contains(keyPath), "\(error!)")
        XCTAssertTrue("\(error!)".contains("No such file"), "\(error!)")
        XCTAssertFalse(FileManager.default.fileExists(atPath: keyPath))
    }

    func testRefusesAFolderAndAMissingFolder() throws {
        XCTAssertNotNil(assertThrows(KeyFileError.self, try DeviceKey.load(keyFile: directory.path)))
        XCTAssertNotNil(assertThrows(KeyFileError.self, try DeviceKey.loadOrCreate(at: path("missing/device.key"))))
    }
}
