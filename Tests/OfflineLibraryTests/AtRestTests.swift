import Foundation
import OfflineLibrary
import Storage
import TestMedia
import XCTest

/// The layers together, as the library will use them: a device key in the data folder, the
/// books in SQLite, an item's media key and headers sealed, its media in an encrypted file;
/// a crash mid-download, a resume from the copy the crash left, and a look at every byte
/// under the data folder.
final class AtRestTests: LibraryTempDirTestCase {
    private let token = "Bearer tok-5f0c1e2d3a4b"

    func testDownloadCrashResumeAndNothingInTheClearAtRest() throws {
        let data = url("data")
        let library = data.appendingPathComponent("library/lib-0123456789ab")
        try FileManager.default.createDirectory(at: library, withIntermediateDirectories: true)
        var random = SeededBytes(seed: 11)
        let plaintext = random.data(3 * EncryptedFile.chunkSize + 500_000)
        let id = "lib-0123456789ab"
        let committed = 2 * EncryptedFile.chunkSize + 123_457

        // Start a download and "crash" partway: the folder is copied while everything is open.
        let mediaKey = try SymmetricKey()
        do {
            let wrap = KeyWrap(deviceKey: try DeviceKey.loadOrCreate(at: data.appendingPathComponent(DeviceKey.fileName).path))
            let books = try LibraryBooks(database: SQLiteDatabase(path: data.appendingPathComponent("marquee.sqlite3").path))
            let iv = try MediaCipher.randomIV()
            let headers = Data(#"{"headers":{"Authorization":"\#(token)"}}"#.utf8)
            try books.insert(LibraryItemRecord(
                id: id, contentId: "film", uri: "https://cdn.example/film.mp4", kind: .file, state: .downloading,
                sealedHeaders: try wrap.seal(headers, associatedData: KeyWrap.context(.headers, item: id)),
                wrappedKey: try wrap.seal(key: mediaKey, associatedData: KeyWrap.context(.mediaKey, item: id)),
                totalBytes: Int64(plaintext.count), createdAt: Date(),
                files: [LibraryFileRecord(name: "media", iv: Data(iv), totalBytes: Int64(plaintext.count))]))
            let file = try EncryptedFile(url: library.appendingPathComponent("media.enc"), key: mediaKey, iv: iv,
                                         storedBytes: 0, recorder: BooksFileProgressRecorder(books: books, itemId: id, name: "media"))
            var offset = 0
            while offset < committed {
                let end = min(committed, offset + 65_536)
                try file.append(plaintext.subdata(in: offset ..< end))
                offset = end
                if offset % (512 << 10) == 0 { try file.commit() }
            }
            try file.commit()
            try file.append(plaintext.subdata(in: committed ..< committed + 700_000))  // never acknowledged
            try FileManager.default.copyItem(at: data, to: url("crashed"))
            withExtendedLifetime((books, file)) {}
        }

        // Start again from what the crash left.
        let crashed = url("crashed")
        let wrap = KeyWrap(deviceKey: try DeviceKey.loadOrCreate(at: crashed.appendingPathComponent(DeviceKey.fileName).path))
        let books = try LibraryBooks(database: SQLiteDatabase(path: crashed.appendingPathComponent("marquee.sqlite3").path))
        let item = try XCTUnwrap(books.loadAll().first)
        XCTAssertEqual(item.files[0].storedBytes, Int64(committed), "what was committed, not what was appended")
        let key = try wrap.openKey(item.wrappedKey, associatedData: KeyWrap.context(.mediaKey, item: id))
        XCTAssertTrue(key.hasSameBytes(as: mediaKey))
        let headers = try wrap.open(try XCTUnwrap(item.sealedHeaders), associatedData: KeyWrap.context(.headers, item: id))
        XCTAssertTrue(String(decoding: headers, as: UTF8.self).contains(token))

        let mediaURL = crashed.appendingPathComponent("library/\(id)/media.enc")
        let iv = [UInt8](item.files[0].iv)
        let file = try EncryptedFile(url: mediaURL, key: key, iv: iv, storedBytes: item.files[0].storedBytes,
                                     recorder: BooksFileProgressRecorder(books: books, itemId: id, name: "media"))
        XCTAssertEqual(file.storedBytes, Int64(committed))
        try file.append(plaintext.suffix(from: Int(file.storedBytes)))  // Range: bytes=storedBytes-
        try file.finish()
        try books.updateState(id: id, state: .complete)

        let reloaded = try XCTUnwrap(books.load(id: id))
        XCTAssertEqual(reloaded.files[0].complete, true)
        XCTAssertEqual(reloaded.files[0].storedBytes, Int64(plaintext.count))
        let checksums = try books.chunkChecksums(itemId: id, name: "media")
        XCTAssertEqual(checksums, try expectedChunkChecksums(plaintext))
        let reader = try EncryptedFileReader(url: mediaURL, key: key, iv: iv, size: reloaded.files[0].storedBytes)
        XCTAssertNil(try reader.verify(checksums: checksums))
        XCTAssertEqual(try reader.readData(at: 0, count: plaintext.count), plaintext)

        // At rest: no slice of the media, no media key, no token, in any file of either folder.
        books.database.close()
        for folder in [data, crashed] {
            XCTAssertEqual(try PlaintextScan.find(slicesOf: plaintext, under: folder), [], folder.lastPathComponent)
            for file in try allFiles(under: folder) {
                let contents = try Data(contentsOf: file)
                XCTAssertNil(contents.range(of: Data(token.utf8)), "token in \(file.lastPathComponent)")
                XCTAssertNil(contents.range(of: mediaKey.withUnsafeBytes { Data($0) }), "media key in \(file.lastPathComponent)")
            }
        }
    }

    /// The scan finds what it should: a positive control for the test above.
    func testPlaintextScanFindsALeakAtAnyAlignment() throws {
        var random = SeededBytes(seed: 12)
        let plaintext = random.data(100_000)
        let folder = url("scan")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("deep/er"), withIntermediateDirectories: true)
        try random.data(50_000).write(to: folder.appendingPathComponent("noise.bin"))
        try Data(count: 8192).write(to: folder.appendingPathComponent("zeros.bin"))
        XCTAssertEqual(try PlaintextScan.find(slicesOf: plaintext + Data(count: 4096), under: folder), [],
                       "noise and zeros match nothing, not even a run of zeros in the plaintext")

        // 127 bytes of plaintext from an odd offset, inside noise: contains one whole slice.
        let leak = random.data(1001) + plaintext.subdata(in: 6401 ..< 6528) + random.data(77)
        try leak.write(to: folder.appendingPathComponent("deep/er/leak.bin"))
        let findings = try PlaintextScan.findings(slicesOf: plaintext, under: folder)
        XCTAssertEqual(findings, [PlaintextScan.Finding(file: "deep/er/leak.bin", fileOffset: 1001 + 63, plaintextOffset: 6464)])
        XCTAssertEqual(try PlaintextScan.find(slicesOf: plaintext, under: folder),
                       ["deep/er/leak.bin at byte 1064 (plaintext byte 6464)"])
        // 126 bytes may straddle two slices without holding either whole.
        // (Framed by bytes that differ from the plaintext's neighbours, so the frame cannot
        // complete a slice by chance.)
        let frame = (Data(repeating: plaintext[6400] ^ 0xff, count: 10), Data(repeating: plaintext[6527] ^ 0xff, count: 10))
        try (frame.0 + plaintext.subdata(in: 6401 ..< 6527) + frame.1).write(to: folder.appendingPathComponent("deep/er/leak.bin"))
        XCTAssertEqual(try PlaintextScan.find(slicesOf: plaintext, under: folder), [])
    }

    private func allFiles(under folder: URL) throws -> [URL] {
        try XCTUnwrap(FileManager.default.enumerator(at: folder, includingPropertiesForKeys: [.isRegularFileKey]))
            .compactMap { $0 as? URL }
            .filter { try $0.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile == true }
    }
}
