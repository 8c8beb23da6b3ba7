import CSoup
import FoundationEssentials
import GLibRuntime
import Logging
import Synchronization

/// Streams one response body, a chunk at a time, so that no request holds more than one
/// chunk of plaintext: a 2 GB copy asked for with `Range: bytes=0-` costs 256 KiB, not 2 GB
/// (the process's RSS rose by 64 KiB while 1 GiB streamed, `LibraryServerThroughputTests`).
///
/// How, with libsoup 3.2's server: the body has a fixed Content-Length and does not
/// accumulate, so libsoup drops each chunk once it is written. The first chunk is read
/// before the handler returns; each next one when libsoup has written the one before
/// (`wrote-chunk`), so reading keeps pace with the client, and a client that stops reading
/// (a paused player) holds one chunk and its socket buffers, nothing more.
///
/// The next chunk is appended from the signal itself, except once every 4 MiB: then it is
/// read in a job on the server's loop (`ServiceThread.perform`), libsoup having paused the
/// message for want of a chunk, and the job unpauses it. libsoup writes for as long as the
/// socket takes bytes, so a client that keeps up (a bulk reader on another core) would
/// otherwise hold the thread, and a key or playlist request behind it, for a whole 2 GB
/// body; the turn bounds that wait to 4 MiB (about 2 ms). On the 2-core test machine,
/// which other builds kept busy, a job per chunk, a job per 4 MiB and no jobs measured
/// within noise of one another (full GET 0.6 to 1.9 GB/s; a 16-byte request during a 1 GiB
/// body, median 0.6 to 12 ms): there the socket fills and libsoup yields on its own.
///
/// Reading (and, for the encrypted copies, decrypting) happens on the server's thread. That
/// thread serves loopback requests only, never the API (the daemon's GLib thread), and a
/// chunk costs about 0.06 ms: a pread of 256 KiB from the page cache, 0.03 ms (measured in
/// `LibraryServerThroughputTests`), and AES-256-CTR over it, 0.035 ms (`openssl speed`,
/// 7.5 GB/s). A cold read from disk is a few ms, inside what a player's queue holds, so a
/// worker thread would add hand-offs for nothing.
///
/// A client that leaves mid-body makes libsoup's next write fail: the message finishes and
/// libsoup drops it; this object goes with the signal handlers' references to it (a job
/// waiting on the loop holds a reference to the message and lets go once it sees the
/// `finished` flag). A read that fails mid-body, or an unpublished token, ends the body
/// early: the connection closes (every response says `Connection: close`) short of its
/// Content-Length, which clients report as a truncated transfer.
///
/// Server thread only. `@unchecked Sendable` to travel in `perform`'s jobs, which run there.
final class BodyStream: @unchecked Sendable {
    /// 256 KiB: a few socket writes per chunk on loopback; 64 KiB and 1 MiB chunks measured
    /// within noise of it (1.2 to 1.9 GB/s for a full GET).
    static let chunkSize = 256 * 1024
    /// Chunks appended from `wrote-chunk` before one goes through the loop: 4 MiB.
    static let chunksPerTurn = (4 << 20) / chunkSize

    private let media: any RandomAccessMedia
    private var offset: Int64
    private var remaining: Int64
    /// The first chunk, read by `init` so that a failing read is still a 500.
    private var firstChunk: OpaquePointer?
    private var message: OpaquePointer?
    private var body: UnsafeMutablePointer<SoupMessageBody>?
    private var thread: ServiceThread?
    private var isPublished: @Sendable () -> Bool = { true }
    /// libsoup finished with the message (body written or client gone): never touch it again.
    private var finished = false
    private var chunksSinceYield = 0
    private let counter: BodyCounter
    private let log = Logger(category: "library")

    /// Reads the first chunk of bytes `first ..< first + length` (length > 0). Throws what
    /// the media throws, or `MediaEnded` when it has fewer bytes than it claims.
    init(media: any RandomAccessMedia, first: Int64, length: Int64, counter: BodyCounter) throws {
        let count = min(Int64(Self.chunkSize), length)
        // Read before `counter` is set: a throw then leaves no object whose deinit would count.
        firstChunk = try Self.read(media, at: first, count: Int(count))
        self.media = media
        offset = first + count
        remaining = length - count
        self.counter = counter
        counter.value.add(1, ordering: .relaxed)
    }

    deinit {
        if let firstChunk { g_bytes_unref(firstChunk) }
        counter.value.subtract(1, ordering: .relaxed)
    }

    /// Hands the first chunk to `message` (its status and headers set, Content-Length
    /// included) and the rest as libsoup writes them.
    func start(on message: OpaquePointer, thread: ServiceThread, isPublished: @escaping @Sendable () -> Bool) {
        self.message = message
        self.thread = thread
        self.isPublished = isPublished
        let body = soup_server_message_get_response_body(message)!
        self.body = body
        soup_message_body_set_accumulate(body, 0)
        typealias MessageCallback = @convention(c) (OpaquePointer?, UnsafeMutableRawPointer?) -> Void
        let onWroteChunk: MessageCallback = { _, data in
            Unmanaged<BodyStream>.fromOpaque(data!).takeUnretainedValue().wroteChunk()
        }
        let onFinished: MessageCallback = { _, data in
            Unmanaged<BodyStream>.fromOpaque(data!).takeUnretainedValue().finished = true
        }
        // Each handler holds a reference, released when the message is finalized.
        for (signal, callback) in [("wrote-chunk", onWroteChunk), ("finished", onFinished)] {
            _ = csoup_signal_connect(UnsafeMutableRawPointer(message), signal, unsafeBitCast(callback, to: GCallback.self),
                                     Unmanaged.passRetained(self).toOpaque(),
                                     { data, _ in Unmanaged<BodyStream>.fromOpaque(data!).release() })
        }
        if let chunk = firstChunk {
            firstChunk = nil
            append(chunk)
        }
    }

    /// libsoup wrote a chunk: append the next now, or (once a turn) in a job on the loop,
    /// after whatever else waits there; libsoup, finding no chunk, pauses the message till then.
    private func wroteChunk() {
        guard remaining > 0, let message, let thread else { return }
        chunksSinceYield += 1
        if chunksSinceYield < Self.chunksPerTurn { appendNext(); return }
        chunksSinceYield = 0
        g_object_ref(UnsafeMutableRawPointer(message))  // until the job has run
        thread.perform { [self] in continueBody() }
    }

    /// The job `wroteChunk` queued: the next chunk, unless libsoup is done with the message.
    private func continueBody() {
        guard let message else { return }
        defer { g_object_unref(UnsafeMutableRawPointer(message)) }
        guard !finished else { return }  // the client left: the message must not be touched
        appendNext()
        soup_server_message_unpause(message)
    }

    private func appendNext() {
        guard isPublished() else {
            log.info("a body ended early: its copy was unpublished")
            endEarly()
            return
        }
        do {
            append(try readChunk())
        } catch {
            log.warning("a body ended early: reading the copy failed", ["error": "\(error)"])
            endEarly()
        }
    }

    /// Appends a chunk `readChunk` made, and completes the body after the last one.
    private func append(_ chunk: OpaquePointer) {
        guard let body else { return }
        soup_message_body_append_bytes(body, chunk)
        g_bytes_unref(chunk)  // the body holds its own reference
        if remaining == 0 { soup_message_body_complete(body) }
    }

    /// An empty chunk short of the Content-Length: libsoup closes the body and the connection.
    private func endEarly() {
        remaining = 0
        if let body { soup_message_body_complete(body) }
    }

    /// The next chunk, and the offset moved past it.
    private func readChunk() throws -> OpaquePointer {
        let count = min(Int64(Self.chunkSize), remaining)
        let chunk = try Self.read(media, at: offset, count: Int(count))
        offset += count
        remaining -= count
        return chunk
    }

    /// `count` bytes at `offset` as GBytes owning their buffer (one allocation, no copy).
    private static func read(_ media: any RandomAccessMedia, at offset: Int64, count: Int) throws -> OpaquePointer {
        let buffer = g_malloc(gsize(count))!
        var filled = 0
        do {
            while filled < count {
                let read = try media.read(at: offset + Int64(filled),
                                          into: UnsafeMutableRawBufferPointer(start: buffer + filled, count: count - filled))
                guard read > 0 else { throw MediaEnded(offset: offset + Int64(filled)) }
                filled += read
            }
        } catch {
            g_free(buffer)
            throw error
        }
        return g_bytes_new_take(buffer, gsize(count))
    }
}

/// The media had no bytes at an offset below its size.
struct MediaEnded: Error, CustomStringConvertible {
    var offset: Int64
    var description: String { "the media ended at \(offset), before its size" }
}

/// The bodies alive (being written, or waiting for libsoup to let go of them): 0 when
/// nothing is in flight, so a test sees whether a client that left released everything.
final class BodyCounter: Sendable {
    let value = Atomic<Int>(0)
}
