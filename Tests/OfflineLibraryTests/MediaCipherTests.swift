import CCrypto
import Foundation
import OfflineLibrary
import XCTest

final class MediaCipherTests: XCTestCase {
    // NIST SP 800-38A, F.5.5 CTR-AES256.Encrypt.
    private let nistKey = Data(hex: "603deb1015ca71be2b73aef0857d77811f352c073b6108d72d9810a30914dff4")
    private let nistCounter = [UInt8](Data(hex: "f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff"))
    private let nistPlaintext = Data(hex: "6bc1bee22e409f96e93d7e117393172a" + "ae2d8a571e03ac9c9eb76fac45af8e51"
                                     + "30c81c46a35ce411e5fbc1191a0a52ef" + "f69f2445df4f9b17ad2b417be66c3710")
    private let nistCiphertext = Data(hex: "601ec313775789a5b7a7f504bbf3d228" + "f443e3ca4d62b59aca84e990cacaf5c5"
                                      + "2b0930daa23de94ce87017ba2d84988d" + "dfc9c58db67aada613c2dd08457941a6")

    private func apply(_ cipher: MediaCipher, _ data: Data, at offset: Int64) throws -> Data {
        var copy = data
        try copy.withUnsafeMutableBytes { try cipher.apply($0, at: offset) }
        return copy
    }

    func testNISTKnownAnswer() throws {
        let cipher = try MediaCipher(key: SymmetricKey(bytes: nistKey), iv: nistCounter)
        XCTAssertEqual(try apply(cipher, nistPlaintext, at: 0).hex, nistCiphertext.hex)
        // And back: CTR decrypts with the same operation.
        XCTAssertEqual(try apply(cipher, nistCiphertext, at: 0), nistPlaintext)
    }

    func testNISTKnownAnswerAtAnyOffset() throws {
        let cipher = try MediaCipher(key: SymmetricKey(bytes: nistKey), iv: nistCounter)
        // Every (start, end) range of the 64 bytes, in an order that is never a continuation.
        for start in stride(from: 63, through: 0, by: -1) {
            for end in start + 1 ... 64 {
                let piece = nistPlaintext.subdata(in: start ..< end)
                XCTAssertEqual(try apply(cipher, piece, at: Int64(start)), nistCiphertext.subdata(in: start ..< end),
                               "bytes \(start)..<\(end)")
            }
        }
    }

    /// Encrypting in one call and in random pieces at random offsets (in random order) gives
    /// the same ciphertext.
    func testRandomPiecesMatchOneCall() throws {
        var random = SeededBytes(seed: 17)
        let key = try SymmetricKey()
        for iv in [try MediaCipher.randomIV(), [UInt8](repeating: 0xff, count: 16),
                   [0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xf0]] {
            let plaintext = random.data(200_000)
            let whole = try apply(MediaCipher(key: key, iv: iv), plaintext, at: 0)
            XCTAssertNotEqual(whole, plaintext)
            var pieces: [Range<Int>] = []
            var start = 0
            while start < plaintext.count {
                let end = min(plaintext.count, start + Int.random(in: 1 ... 5000, using: &random))
                pieces.append(start ..< end)
                start = end
            }
            pieces.shuffle(using: &random)
            let cipher = try MediaCipher(key: key, iv: iv)
            var assembled = Data(count: plaintext.count)
            for piece in pieces {
                assembled.replaceSubrange(piece, with: try apply(cipher, plaintext.subdata(in: piece), at: Int64(piece.lowerBound)))
            }
            XCTAssertEqual(assembled, whole, "IV \(Data(iv).hex)")
            // In order: each call continues the last.
            let sequential = try MediaCipher(key: key, iv: iv)
            var inOrder = Data()
            for piece in pieces.sorted(by: { $0.lowerBound < $1.lowerBound }) {
                inOrder += try apply(sequential, plaintext.subdata(in: piece), at: Int64(piece.lowerBound))
            }
            XCTAssertEqual(inOrder, whole)
        }
    }

    /// The counter arithmetic against an independent computation: the keystream built here
    /// from AES-256-ECB of counter blocks (IV + n, 128-bit big-endian, computed on two UInt64),
    /// far into a file and across the 64- and 128-bit carries.
    func testKeystreamMatchesECBOfCounterBlocks() throws {
        let keyBytes = try SecureRandom.bytes(32)
        let key = try SymmetricKey(bytes: keyBytes)
        let cases: [([UInt8], Int64)] = [
            (try MediaCipher.randomIV(), 0),
            (try MediaCipher.randomIV(), 5_000_000_007),  // past 4 GiB: the block index needs 29+ bits
            ([0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xfe], 3),  // low half carries
            ([UInt8](repeating: 0xff, count: 15) + [0xfd], 17),  // 128-bit wrap to zero
            ([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff], 1 << 40),  // a 32-bit counter would wrap here
        ]
        for (iv, offset) in cases {
            let length = 200
            let keystream = try MediaCipher(key: key, iv: iv)
            let actual = try apply(keystream, Data(count: length), at: offset)
            XCTAssertEqual(actual, try Self.referenceKeystream(key: keyBytes, iv: iv, offset: offset, count: length),
                           "IV \(Data(iv).hex) offset \(offset)")
        }
    }

    static func referenceKeystream(key: [UInt8], iv: [UInt8], offset: Int64, count: Int) throws -> Data {
        var high = iv[0 ..< 8].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        var low = iv[8 ..< 16].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        let (sum, carried) = low.addingReportingOverflow(UInt64(offset / 16))
        low = sum
        if carried { high &+= 1 }
        var stream = Data()
        let ecb = try XCTUnwrap(EVP_CIPHER_CTX_new())
        defer { EVP_CIPHER_CTX_free(ecb) }
        XCTAssertEqual(EVP_EncryptInit_ex(ecb, EVP_aes_256_ecb(), nil, key, nil), 1)
        EVP_CIPHER_CTX_set_padding(ecb, 0)
        while stream.count < count + Int(offset % 16) {
            var block = (0 ..< 8).map { UInt8(truncatingIfNeeded: high >> (56 - 8 * UInt64($0))) }
                + (0 ..< 8).map { UInt8(truncatingIfNeeded: low >> (56 - 8 * UInt64($0))) }
            var out = [UInt8](repeating: 0, count: 32)
            var written: Int32 = 0
            XCTAssertEqual(EVP_EncryptUpdate(ecb, &out, &written, &block, 16), 1)
            stream += out.prefix(16)
            let (next, overflow) = low.addingReportingOverflow(1)
            low = next
            if overflow { high &+= 1 }
        }
        return stream.subdata(in: Int(offset % 16) ..< Int(offset % 16) + count)
    }

    func testWrongSizesAreRefused() throws {
        XCTAssertEqual(assertThrows(CryptoError.self, try MediaCipher(key: SymmetricKey(), iv: [1, 2, 3]))?.kind,
                       .invalidArgument)
        XCTAssertEqual(assertThrows(CryptoError.self, try SymmetricKey(bytes: [UInt8](repeating: 1, count: 16)))?.kind,
                       .invalidArgument)
    }

    func testKeyDescriptionIsRedacted() throws {
        let key = try SymmetricKey(bytes: nistKey)
        XCTAssertEqual("\(key)", "SymmetricKey(32 bytes, redacted)")
        XCTAssertFalse(String(reflecting: key).contains("603d"))
        XCTAssertTrue(key.hasSameBytes(as: try SymmetricKey(bytes: nistKey)))
        XCTAssertFalse(key.hasSameBytes(as: try SymmetricKey()))
    }

    /// Prints MB/s; asserts nothing (the machine is shared).
    func testThroughput() throws {
        let cipher = try MediaCipher(key: SymmetricKey(), iv: MediaCipher.randomIV())
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        buffer.initializeMemory(as: UInt8.self, repeating: 7)
        let total = 256 << 20
        var start = DispatchTime.now()
        for offset in stride(from: 0, to: total, by: buffer.count) {
            try cipher.apply(buffer, at: Int64(offset))
        }
        let sequential = Double(total) / 1e6 / (Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9)
        // 64 KiB at random offsets: every call re-initialises the counter (a seek).
        let small = UnsafeMutableRawBufferPointer(rebasing: buffer[..<(64 << 10)])
        var random = SeededBytes(seed: 3)
        let calls = 2048
        start = DispatchTime.now()
        for _ in 0 ..< calls {
            try cipher.apply(small, at: Int64.random(in: 0 ..< (1 << 32), using: &random))
        }
        let seeking = Double(calls * small.count) / 1e6 / (Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9)
        print("MediaCipher throughput: \(Int(sequential)) MB/s sequential (1 MiB calls), "
              + "\(Int(seeking)) MB/s with a seek before every 64 KiB call")
    }
}
