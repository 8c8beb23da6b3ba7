import FoundationEssentials
import Storage

/// One media file being downloaded, stored encrypted: `<folder>/<name>.enc` holds only
/// AES-256-CTR ciphertext (`MediaCipher`), exactly as long as the plaintext.
///
/// What is acknowledged lives in the books (`FileProgressRecorder`): the stored offset and the
/// SHA-256 of each completed 1 MiB plaintext chunk. `commit()` writes out, fsyncs, and only
/// then records the new offset and the new chunks' checksums in one transaction, so the books
/// never claim bytes the disk may not have. Opening truncates the file to the recorded offset,
/// dropping whatever a crash left beyond it, and resumes the running digest of a partly stored
/// chunk by reading that part back and decrypting it.
///
/// Threading: like `DownloadDestination`, used on one thread (the library's) only.
public final class EncryptedFile: DownloadDestination {
    /// 1 MiB: a damaged chunk costs at most 1 MiB to find again, and the books hold 32 bytes
    /// per MiB (128 KiB of checksums for a 4 GiB film).
    public static let chunkSize = 1 << 20
    /// Ciphertext is gathered and written 256 KiB at a time: network reads arrive in 8-64 KiB
    /// pieces, and one `pwrite` per several of them keeps system calls off the profile.
    static let writeBufferSize = 256 << 10

    public let url: URL
    public private(set) var storedBytes: Int64
    public var pendingBytes: Int64 { appendedEnd - storedBytes }
    /// Acknowledged bytes that were missing when the file was opened (the file was shorter than
    /// the books said: deleted or truncated behind the daemon's back). The file then starts
    /// again from 0; the library should log this. 0 normally.
    public let lostBytes: Int64
    /// True after `finish()`: the file is whole and takes no more bytes.
    public private(set) var isFinished = false

    private let file: OpenFile
    private let cipher: MediaCipher
    private let recorder: FileProgressRecorder
    private let digest: SHA256
    /// Ciphertext not yet written, for the bytes from `appendedEnd - buffered`.
    private let buffer: UnsafeMutableRawBufferPointer
    private var buffered = 0
    /// `storedBytes + pendingBytes`: the offset the next appended byte goes to.
    private var appendedEnd: Int64
    /// Checksums of chunks completed since the last successful record.
    private var unrecordedChunks: [ChunkChecksum] = []
    /// The checksum of the last, shorter chunk, once `finish()` has closed it.
    private var finalChunk: ChunkChecksum?
    /// Set when a write failed midway: the file on disk no longer matches what this instance
    /// believes, so it refuses more appends (reopen it, or `restart()`).
    private var broken: MediaFileError?

    /// Opens (creating if absent) the file at `url`.
    /// - Parameters:
    ///   - key, iv: the item's media key and this file's IV (from the books).
    ///   - storedBytes: the offset the books recorded (0 for a new file).
    ///   - recorder: where commits record progress.
    public init(url: URL, key: SymmetricKey, iv: [UInt8], storedBytes recorded: Int64,
                recorder: FileProgressRecorder) throws {
        precondition(recorded >= 0, "a negative stored offset")
        self.url = url
        self.recorder = recorder
        let file = try OpenFile(path: url.path(percentEncoded: false), writable: true, create: true)
        self.file = file
        cipher = try MediaCipher(key: key, iv: iv)
        digest = try SHA256()
        var stored = recorded
        var lost: Int64 = 0
        if try file.size() < recorded {
            try recorder.recordRestart()
            (lost, stored) = (recorded, 0)
        }
        // Bytes past the recorded offset were never acknowledged: a crash between write and
        // record, or a commit that never came. No need to sync the truncation: if it is lost,
        // the next open truncates again.
        try file.truncate(to: stored)
        lostBytes = lost
        storedBytes = stored
        appendedEnd = stored
        buffer = .allocate(byteCount: Self.writeBufferSize, alignment: 16)
        try resumeChunkDigest()
    }

    deinit { buffer.deallocate() }

    /// Number of checksummed chunks in a file of `size` bytes (the last may be shorter).
    public static func chunkCount(forSize size: Int64) -> Int {
        Int((size + Int64(chunkSize) - 1) / Int64(chunkSize))
    }

    // MARK: DownloadDestination

    public func append(_ bytes: UnsafeRawBufferPointer) throws {
        if let broken { throw broken }
        guard finalChunk == nil && !isFinished else {
            throw MediaFileError(path: file.path, operation: "append", message: "the file is already complete")
        }
        guard let base = bytes.baseAddress else { return }
        var done = 0
        while done < bytes.count {
            let chunkLeft = Self.chunkSize - Int(appendedEnd % Int64(Self.chunkSize))
            let piece = min(bytes.count - done, Self.writeBufferSize - buffered, chunkLeft)
            let plaintext = UnsafeRawBufferPointer(start: base + done, count: piece)
            try digest.update(plaintext)
            let slot = UnsafeMutableRawBufferPointer(rebasing: buffer[buffered ..< buffered + piece])
            slot.copyMemory(from: plaintext)
            try cipher.apply(slot, at: appendedEnd)
            buffered += piece
            appendedEnd += Int64(piece)
            done += piece
            if piece == chunkLeft {
                let index = Int(appendedEnd / Int64(Self.chunkSize)) - 1
                unrecordedChunks.append(ChunkChecksum(index: index, sha256: try digest.finalize()))
            }
            if buffered == Self.writeBufferSize { try flush() }
        }
    }

    public func commit() throws {
        try commit(complete: false)
    }

    public func restart() throws {
        // Books first: if the truncation below is lost in a crash, the next open truncates to
        // the recorded 0 anyway. The other order, cut by a crash, would leave the books
        // claiming bytes the file no longer has (which opening reports as `lostBytes`).
        try recorder.recordRestart()
        try file.truncate(to: 0)
        storedBytes = 0
        appendedEnd = 0
        buffered = 0
        unrecordedChunks = []
        finalChunk = nil
        isFinished = false
        broken = nil
        try digest.reset()
    }

    // MARK: Completion

    /// Commits the last bytes and records the file as whole, with the checksum of its last,
    /// shorter chunk, in the same transaction. Appends are refused afterwards.
    public func finish() throws {
        if let broken { throw broken }
        guard !isFinished else { return }
        if finalChunk == nil && appendedEnd % Int64(Self.chunkSize) != 0 {
            finalChunk = ChunkChecksum(index: Int(appendedEnd / Int64(Self.chunkSize)), sha256: try digest.finalize())
        }
        try commit(complete: true)
        isFinished = true
    }

    /// Closes the descriptor. Bytes not committed are dropped (the next open truncates them).
    public func close() {
        file.close()
    }

    // MARK: Internals

    private func commit(complete: Bool) throws {
        if let broken { throw broken }
        guard appendedEnd != storedBytes || !unrecordedChunks.isEmpty || complete else { return }
        let newChunks = complete ? unrecordedChunks + (finalChunk.map { [$0] } ?? []) : unrecordedChunks
        try flush()
        do {
            try file.syncData()
        } catch let error as MediaFileError {
            // After a failed fsync the kernel may have dropped the dirty pages: what is on
            // disk is unknown, so nothing past the recorded offset can be trusted.
            broken = error
            throw error
        }
        try recorder.recordProgress(storedBytes: appendedEnd, newChunks: newChunks, complete: complete)
        storedBytes = appendedEnd
        unrecordedChunks = []
    }

    private func flush() throws {
        guard buffered > 0 else { return }
        do {
            try file.write(UnsafeRawBufferPointer(rebasing: buffer[..<buffered]), at: appendedEnd - Int64(buffered))
        } catch let error as MediaFileError {
            broken = error
            throw error
        }
        buffered = 0
    }

    /// Feeds the stored part of the last, partly stored chunk to the running digest.
    private func resumeChunkDigest() throws {
        let partial = Int(storedBytes % Int64(Self.chunkSize))
        guard partial > 0 else { return }
        let start = storedBytes - Int64(partial)
        var done = 0
        while done < partial {
            let piece = min(partial - done, Self.writeBufferSize)
            let slot = UnsafeMutableRawBufferPointer(rebasing: buffer[..<piece])
            let read = try file.read(into: slot, at: start + Int64(done))
            guard read == piece else {
                throw MediaFileError(path: file.path, operation: "read", message: "the file ended while reading back its last chunk")
            }
            try cipher.apply(slot, at: start + Int64(done))
            try digest.update(UnsafeRawBufferPointer(slot))
            done += piece
        }
        // The plaintext read back is no longer needed; the buffer is reused for ciphertext.
        buffer.initializeMemory(as: UInt8.self, repeating: 0)
    }
}
