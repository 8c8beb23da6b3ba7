import Foundation
import OfflineLibrary
import Storage
import TestMedia
import XCTest

final class EncryptedFileTests: LibraryTempDirTestCase {
    private let key = try! SymmetricKey()
    private let iv = try! MediaCipher.randomIV()
    private let chunk = EncryptedFile.chunkSize

    private func open(_ recorder: MemoryProgressRecorder, name: String = "media") throws -> EncryptedFile {
        try EncryptedFile(url: url(name + ".enc"), key: key, iv: iv, storedBytes: recorder.storedBytes, recorder: recorder)
    }

    private func reader(_ name: String = "media", size: Int64? = nil) throws -> EncryptedFileReader {
        try EncryptedFileReader(url: url(name + ".enc"), key: key, iv: iv, size: size)
    }

    /// Appends `data` in random pieces, committing now and then.
    private func feed(_ file: EncryptedFile, _ data: Data, random: inout SeededBytes) throws {
        var offset = 0
        while offset < data.count {
            let end = min(data.count, offset + Int.random(in: 1 ... 100_000, using: &random))
            try file.append(data.subdata(in: offset ..< end))
            offset = end
            if Int.random(in: 0 ..< 8, using: &random) == 0 { try file.commit() }
        }
    }

    func testWritesCiphertextOfTheSameLengthAndReadsBackThePlaintext() throws {
        var random = SeededBytes(seed: 1)
        let plaintext = random.data(3 * chunk + 12_345)
        let recorder = MemoryProgressRecorder()
        let file = try open(recorder)
        try feed(file, plaintext, random: &random)
        try file.finish()
        XCTAssertTrue(file.isFinished)
        XCTAssertEqual(file.storedBytes, Int64(plaintext.count))
        XCTAssertEqual(file.pendingBytes, 0)
        XCTAssertTrue(recorder.complete)
        XCTAssertEqual(recorder.storedBytes, Int64(plaintext.count))
        XCTAssertEqual(recorder.orderedChunks, try expectedChunkChecksums(plaintext), "one SHA-256 per 1 MiB of plaintext")
        XCTAssertEqual(recorder.orderedChunks.count, 4)

        let onDisk = try Data(contentsOf: url("media.enc"))
        XCTAssertEqual(onDisk.count, plaintext.count)
        XCTAssertNotEqual(onDisk.prefix(64), plaintext.prefix(64))
        XCTAssertEqual(try PlaintextScan.find(slicesOf: plaintext, under: directory), [])

        let media = try reader(size: Int64(plaintext.count))
        XCTAssertEqual(media.size, Int64(plaintext.count))
        XCTAssertEqual(try media.readData(at: 0, count: plaintext.count + 10), plaintext)
        for _ in 0 ..< 200 {
            let offset = Int.random(in: 0 ..< plaintext.count, using: &random)
            let count = Int.random(in: 1 ... 70_000, using: &random)
            let expected = plaintext.subdata(in: offset ..< min(plaintext.count, offset + count))
            XCTAssertEqual(try media.readData(at: Int64(offset), count: count), expected, "read \(count) at \(offset)")
        }
        XCTAssertEqual(try media.readData(at: Int64(plaintext.count), count: 10), Data())
        XCTAssertEqual(try media.readData(at: Int64(plaintext.count) + 5, count: 10), Data())
        XCTAssertNil(try media.verify(checksums: recorder.orderedChunks))
    }

    func testCommitWritesAndSyncsBeforeRecording() throws {
        let recorder = MemoryProgressRecorder()
        let file = try open(recorder)
        try file.append(Data(count: 1000))
        XCTAssertEqual(file.storedBytes, 0)
        XCTAssertEqual(file.pendingBytes, 1000)
        XCTAssertEqual(recorder.calls, [], "nothing recorded before a commit")
        try file.commit()
        XCTAssertEqual(recorder.calls, ["progress 1000 chunks [] complete false"])
        XCTAssertEqual(try Data(contentsOf: url("media.enc")).count, 1000, "the data is in the file when the offset is recorded")
        try file.commit()
        XCTAssertEqual(recorder.calls.count, 1, "a commit with nothing new records nothing")

        // A recorder that fails leaves the bytes pending; the next commit records them.
        try file.append(Data(count: chunk))
        recorder.failNext = InjectedFailure()
        XCTAssertNotNil(assertThrows(InjectedFailure.self, try file.commit()))
        XCTAssertEqual(file.storedBytes, 1000)
        XCTAssertEqual(file.pendingBytes, Int64(chunk))
        try file.commit()
        XCTAssertEqual(recorder.calls.last, "progress \(chunk + 1000) chunks [0] complete false")
        XCTAssertEqual(file.storedBytes, Int64(chunk + 1000))
    }

    /// Bytes appended (and even written out) but not committed are gone after a reopen, and
    /// the checksums come out right when the download continues from the recorded offset,
    /// including the chunk that was partly stored.
    func testReopenTruncatesToTheRecordedOffsetAndResumesTheChunkDigest() throws {
        var random = SeededBytes(seed: 2)
        let plaintext = random.data(2 * chunk + 777)
        let recorder = MemoryProgressRecorder()
        let committed = chunk + chunk / 3
        do {
            let file = try open(recorder)
            try file.append(plaintext.prefix(committed))
            try file.commit()
            // More than the write buffer, so some of it reaches the file, then "crash".
            try file.append(plaintext.subdata(in: committed ..< committed + 600_000))
            file.close()
        }
        XCTAssertGreaterThan(try Data(contentsOf: url("media.enc")).count, committed, "uncommitted bytes reached the disk")
        XCTAssertEqual(recorder.storedBytes, Int64(committed))
        XCTAssertEqual(recorder.chunks.count, 1)

        let resumed = try open(recorder)
        XCTAssertEqual(resumed.storedBytes, Int64(committed))
        XCTAssertEqual(resumed.pendingBytes, 0)
        XCTAssertEqual(resumed.lostBytes, 0)
        XCTAssertEqual(try Data(contentsOf: url("media.enc")).count, committed, "truncated to the recorded offset")
        // Resume as the downloader does: from storedBytes.
        try resumed.append(plaintext.suffix(from: committed))
        try resumed.finish()
        XCTAssertEqual(recorder.orderedChunks, try expectedChunkChecksums(plaintext))
        XCTAssertEqual(try reader().readData(at: 0, count: plaintext.count), plaintext)
        XCTAssertNil(try reader().verify(checksums: recorder.orderedChunks))
    }

    func testRestartStartsFromZero() throws {
        var random = SeededBytes(seed: 3)
        let first = random.data(chunk + 10)
        let second = random.data(5000)
        let recorder = MemoryProgressRecorder()
        let file = try open(recorder)
        try file.append(first)
        try file.commit()
        try file.append(Data(count: 100))
        try file.restart()
        XCTAssertEqual(recorder.calls.last, "restart")
        XCTAssertEqual(file.storedBytes, 0)
        XCTAssertEqual(file.pendingBytes, 0)
        XCTAssertEqual(recorder.chunks, [:])
        XCTAssertEqual(try Data(contentsOf: url("media.enc")).count, 0)
        try file.append(second)
        try file.finish()
        XCTAssertEqual(recorder.orderedChunks, try expectedChunkChecksums(second))
        XCTAssertEqual(try reader().readData(at: 0, count: 10_000), second)
    }

    func testAFileShorterThanRecordedStartsAgain() throws {
        let recorder = MemoryProgressRecorder()
        do {
            let file = try open(recorder)
            try file.append(Data(count: 5000))
            try file.commit()
        }
        try FileManager.default.removeItem(at: url("media.enc"))
        let reopened = try open(recorder)
        XCTAssertEqual(reopened.lostBytes, 5000)
        XCTAssertEqual(reopened.storedBytes, 0)
        XCTAssertEqual(recorder.calls.last, "restart")
        XCTAssertEqual(assertThrows(MediaFileError.self, try reader(size: 5000))?.operation, "open")
    }

    func testFinishRecordsTheLastChunkAndRefusesMoreBytes() throws {
        for size in [0, 1, chunk - 1, chunk, chunk + 1, 2 * chunk] {
            let recorder = MemoryProgressRecorder()
            let name = "file-\(size)"
            let file = try open(recorder, name: name)
            let plaintext = Data((0 ..< size).map { UInt8(truncatingIfNeeded: $0 * 7 + $0 / 251) })
            try file.append(plaintext)
            try file.finish()
            try file.finish()  // idempotent
            XCTAssertEqual(recorder.orderedChunks, try expectedChunkChecksums(plaintext), "size \(size)")
            XCTAssertEqual(recorder.orderedChunks.count, EncryptedFile.chunkCount(forSize: Int64(size)))
            XCTAssertTrue(recorder.complete)
            XCTAssertNotNil(assertThrows(MediaFileError.self, try file.append(Data([1]))))
            XCTAssertNil(try reader(name).verify(checksums: recorder.orderedChunks), "size \(size)")
        }
    }

    func testVerifyNamesTheDamagedChunk() throws {
        var random = SeededBytes(seed: 4)
        let plaintext = random.data(3 * chunk + 100)
        let recorder = MemoryProgressRecorder()
        let file = try open(recorder)
        try file.append(plaintext)
        try file.finish()
        let checksums = recorder.orderedChunks
        XCTAssertNil(try reader().verify(checksums: checksums))
        // One flipped bit in chunk 2.
        let handle = try FileHandle(forUpdating: url("media.enc"))
        try handle.seek(toOffset: UInt64(2 * chunk + 4242))
        let byte = try XCTUnwrap(handle.readData(ofLength: 1).first)
        try handle.seek(toOffset: UInt64(2 * chunk + 4242))
        handle.write(Data([byte ^ 0x10]))
        try handle.close()
        XCTAssertEqual(try reader().verify(checksums: checksums), 2)
        // Missing or extra checksums.
        XCTAssertEqual(try reader().verify(checksums: Array(checksums.prefix(1))), 1)
        XCTAssertEqual(try reader().verify(checksums: [checksums[0], checksums[1], checksums[2], checksums[3], checksums[3]]), 2)
        XCTAssertEqual(try reader(size: 2 * Int64(chunk)).verify(checksums: checksums), 2, "more checksums than chunks")
    }

    func testWriteFailureIsReportedAsStorage() throws {
        let recorder = MemoryProgressRecorder()
        let file = try open(recorder)
        // A descriptor that can no longer write: the next flush fails.
        file.close()
        try file.append(Data(count: 10))
        let error = assertThrows(MediaFileError.self, try file.commit())
        XCTAssertEqual(error?.downloadFailure.code, "storage")
        XCTAssertNotNil(error?.errno)
        XCTAssertNotNil(assertThrows(MediaFileError.self, try file.append(Data(count: 1))), "refuses more after a failed write")
    }
}
