import Foundation
import XCTest
@testable import MarqueeClient

final class SHA1Tests: XCTestCase {
    func testKnownVectors() {
        // FIPS 180-2 appendix A and the common reference strings.
        XCTAssertEqual(SHA1.hexDigest([UInt8]()), "da39a3ee5e6b4b0d3255bfef95601890afd80709")
        XCTAssertEqual(SHA1.hexDigest(Array("abc".utf8)), "a9993e364706816aba3e25717850c26c9cd0d89d")
        XCTAssertEqual(SHA1.hexDigest(Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)),
                       "84983e441c3bd26ebaae4aa1f95129e5e54670f1")
        XCTAssertEqual(SHA1.hexDigest(Array("The quick brown fox jumps over the lazy dog".utf8)),
                       "2fd4e1c67a2d28fced849ee1bb76e7391b93eb12")
        XCTAssertEqual(SHA1.hexDigest(Array("The quick brown fox jumps over the lazy cog".utf8)),
                       "de9f2c7fd25e1b3afad3e85a0bd17d9b100db4b3")
    }

    func testMillionAs() {
        // Many blocks, and a length whose padding needs a block of its own.
        XCTAssertEqual(SHA1.hexDigest([UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)),
                       "34aa973cd4c4daa4f61eeb2bdbad27316534016f")
    }

    func testPaddingBoundaries() {
        // 55, 56 and 64 bytes straddle the point where the length no longer fits in the block.
        XCTAssertEqual(SHA1.hexDigest([UInt8](repeating: UInt8(ascii: "a"), count: 55)),
                       "c1c8bbdc22796e28c0e15163d20899b65621d65a")
        XCTAssertEqual(SHA1.hexDigest([UInt8](repeating: UInt8(ascii: "a"), count: 56)),
                       "c2db330f6083854c99d4b5bfb6e8f29f201be699")
        XCTAssertEqual(SHA1.hexDigest([UInt8](repeating: UInt8(ascii: "a"), count: 64)),
                       "0098ba824b5c16427bd7a1122a5a442a25ec644d")
        XCTAssertEqual(SHA1.digest("abc").count, 20)
    }

    func testWebSocketAcceptExampleFromRFC6455() {
        // RFC 6455 section 1.3: key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11", SHA-1, base64.
        XCTAssertEqual(SHA1.hexDigest(Array("dGhlIHNhbXBsZSBub25jZQ==258EAFA5-E914-47DA-95CA-C5AB0DC85B11".utf8)),
                       "b37a4f2cc0624f1690f64606cf385945b2bec4ea")
        XCTAssertEqual(WebSocketClient.acceptValue(forKey: "dGhlIHNhbXBsZSBub25jZQ=="),
                       "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
    }
}
