import Foundation
import OfflineLibrary
import XCTest

final class KeyWrapTests: XCTestCase {
    private let wrap = KeyWrap(deviceKey: DeviceKey(key: try! SymmetricKey()))

    func testSealOpenRoundTripAndLayout() throws {
        let headers = Data(#"{"headers":{"Authorization":"Bearer secret-token"}}"#.utf8)
        let context = KeyWrap.context(.headers, item: "lib-0123456789ab")
        XCTAssertEqual(context, "marquee.library/headers/lib-0123456789ab")
        let sealed = try wrap.seal(headers, associatedData: context)
        XCTAssertEqual(sealed.count, 12 + headers.count + 16)
        XCTAssertNil(sealed.range(of: Data("secret-token".utf8)), "no plaintext in the sealed bytes")
        XCTAssertEqual(try wrap.open(sealed, associatedData: context), headers)
        XCTAssertNotEqual(try wrap.seal(headers, associatedData: context), sealed, "a fresh nonce every time")
        // Empty secrets work too.
        XCTAssertEqual(try wrap.open(try wrap.seal(Data(), associatedData: "x"), associatedData: "x"), Data())
    }

    func testMediaKeyRoundTrip() throws {
        let key = try SymmetricKey()
        let context = KeyWrap.context(.mediaKey, item: "lib-aaaaaaaaaaaa")
        let sealed = try wrap.seal(key: key, associatedData: context)
        XCTAssertEqual(sealed.count, 12 + 32 + 16)
        XCTAssertTrue(try wrap.openKey(sealed, associatedData: context).hasSameBytes(as: key))
    }

    func testWrongKeyWrongContextOrDamageFailsToOpen() throws {
        let key = try SymmetricKey()
        let context = KeyWrap.context(.mediaKey, item: "lib-aaaaaaaaaaaa")
        let sealed = try wrap.seal(key: key, associatedData: context)

        let otherDevice = KeyWrap(deviceKey: DeviceKey(key: try SymmetricKey()))
        XCTAssertEqual(assertThrows(CryptoError.self, try otherDevice.openKey(sealed, associatedData: context))?.kind,
                       .authentication)
        // Moved to another item, or into the headers column.
        XCTAssertEqual(assertThrows(CryptoError.self, try wrap.openKey(sealed, associatedData: KeyWrap.context(.mediaKey, item: "lib-bbbbbbbbbbbb")))?.kind,
                       .authentication)
        XCTAssertEqual(assertThrows(CryptoError.self, try wrap.open(sealed, associatedData: KeyWrap.context(.headers, item: "lib-aaaaaaaaaaaa")))?.kind,
                       .authentication)
        // Any flipped bit: nonce, ciphertext or tag.
        for index in 0 ..< sealed.count {
            var damaged = sealed
            damaged[index] ^= 0x01
            XCTAssertEqual(assertThrows(CryptoError.self, try wrap.open(damaged, associatedData: context))?.kind,
                           .authentication, "byte \(index)")
        }
        // Cut short, or too short to hold a nonce and a tag.
        XCTAssertEqual(assertThrows(CryptoError.self, try wrap.open(sealed.dropLast(), associatedData: context))?.kind,
                       .authentication)
        XCTAssertEqual(assertThrows(CryptoError.self, try wrap.open(Data(count: 27), associatedData: context))?.kind,
                       .authentication)
        // A sealed secret of another length is not a key.
        let notAKey = try wrap.seal(Data(count: 31), associatedData: context)
        XCTAssertEqual(assertThrows(CryptoError.self, try wrap.openKey(notAKey, associatedData: context))?.kind,
                       .authentication)
    }

    func testErrorsNameNoSecret() throws {
        let sealed = try wrap.seal(Data("token-123".utf8), associatedData: "a")
        let error = assertThrows(CryptoError.self, try wrap.open(sealed, associatedData: "b"))
        XCTAssertFalse("\(error!)".contains("token-123"))
        XCTAssertTrue("\(error!)".contains("does not authenticate"), "\(error!)")
    }
}
