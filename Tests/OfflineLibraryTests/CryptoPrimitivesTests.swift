import Foundation
import OfflineLibrary
import XCTest

final class CryptoPrimitivesTests: XCTestCase {
    func testSecureRandomGivesFreshBytes() throws {
        XCTAssertEqual(try SecureRandom.bytes(0), [])
        let a = try SecureRandom.bytes(32)
        let b = try SecureRandom.bytes(32)
        XCTAssertEqual(a.count, 32)
        XCTAssertNotEqual(a, b)
        XCTAssertGreaterThan(Set(try SecureRandom.bytes(4096)).count, 200, "all byte values turn up")
    }

    func testSHA256KnownAnswers() throws {
        XCTAssertEqual(try SHA256.hash(Data()).hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        XCTAssertEqual(try SHA256.hash(Data("abc".utf8)).hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        // FIPS 180-2's two-block message.
        XCTAssertEqual(try SHA256.hash(Data("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)).hex,
                       "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
    }

    func testSHA256IncrementalMatchesOneCallAndRestartsAfterFinalize() throws {
        var random = SeededBytes(seed: 5)
        let data = random.data(300_001)
        let digest = try SHA256()
        var offset = 0
        while offset < data.count {
            let end = min(data.count, offset + Int.random(in: 0 ... 9000, using: &random))
            try digest.update(data.subdata(in: offset ..< end))
            offset = end
        }
        XCTAssertEqual(try digest.finalize(), try SHA256.hash(data))
        try digest.update(Data("abc".utf8))
        XCTAssertEqual(try digest.finalize().hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        try digest.update(Data("x".utf8))
        try digest.reset()
        XCTAssertEqual(try digest.finalize(), try SHA256.hash(Data()))
    }
}
