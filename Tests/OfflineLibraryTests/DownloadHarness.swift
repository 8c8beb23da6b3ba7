import Foundation
import GLibRuntime
import OfflineLibrary
import TestMedia
import XCTest

/// What a download's delegate heard, in order.
enum DownloadEvent: Equatable, CustomStringConvertible {
    case total(Int64)
    case stored(Int64)
    case retry(DownloadFailure, Duration)
    case finished
    case failed(DownloadFailure)

    var description: String {
        switch self {
        case .total(let total): return "total(\(total))"
        case .stored(let bytes): return "stored(\(bytes))"
        case .retry(let failure, let delay): return "retry(\(failure), \(delay))"
        case .finished: return "finished"
        case .failed(let failure): return "failed(\(failure))"
        }
    }
}

/// A `FileDownloadDelegate` that records every call; hooks run on the download's thread,
/// inside the call (where the owner would answer or cancel). `waitForEnd` returns once the
/// download finished or failed, or a hook called `markEnded()`.
final class DownloadProbe: FileDownloadDelegate, @unchecked Sendable {
    private let lock = NSLock()
    private var recorded: [DownloadEvent] = []
    private let ended = DispatchSemaphore(value: 0)
    var answerTotal: (Int64) -> DownloadFailure? = { _ in nil }
    var onStored: (FileDownload, Int64) -> Void = { _, _ in }
    var onRetry: (FileDownload, DownloadFailure) -> Void = { _, _ in }

    var events: [DownloadEvent] { lock.withLock { recorded } }
    var retries: [(failure: DownloadFailure, delay: Duration)] {
        events.compactMap { if case let .retry(failure, delay) = $0 { return (failure, delay) } else { return nil } }
    }
    var lastEvent: DownloadEvent? { events.last }

    func waitForEnd(timeout: Double = 60) -> Bool { ended.wait(timeout: .now() + timeout) == .success }
    func markEnded() { ended.signal() }

    private func note(_ event: DownloadEvent) { lock.withLock { recorded.append(event) } }

    func download(_ download: FileDownload, learnedTotal total: Int64) -> DownloadFailure? {
        note(.total(total))
        return answerTotal(total)
    }

    func download(_ download: FileDownload, stored bytes: Int64) {
        note(.stored(bytes))
        onStored(download, bytes)
    }

    func download(_ download: FileDownload, willRetryIn delay: Duration, after failure: DownloadFailure) {
        note(.retry(failure, delay))
        onRetry(download, failure)
    }

    func downloadFinished(_ download: FileDownload) {
        note(.finished)
        ended.signal()
    }

    func download(_ download: FileDownload, failed failure: DownloadFailure) {
        note(.failed(failure))
        ended.signal()
    }
}

/// Runs `FileDownload`s on a `ServiceThread` of its own, as the library does; the test
/// thread starts them and waits. Downloads and sessions are made, kept and released on that
/// thread. `close()` at the end of each test.
final class DownloadHarness: @unchecked Sendable {
    let thread = ServiceThread(name: "test-downloads")
    // On the thread only:
    private var downloads: [FileDownload] = []
    private var sessions: [DownloadSession] = []

    /// Starts a download on the thread (a session of its own with `limiter`) and returns at
    /// once; the probe hears the rest.
    func start(_ url: String, into destination: DownloadDestination, probe: DownloadProbe,
               options: FileDownloadOptions = .fastTests, limiter: DownloadRateLimiter? = nil,
               knownTotal: Int64? = nil, headers: [String: String] = [:]) {
        let destination = LockedBox(destination)
        thread.perform { [self] in
            let session = DownloadSession(thread: thread, rateLimiter: limiter)
            let download = FileDownload(url: url, headers: headers, destination: destination.value, session: session,
                                        knownTotal: knownTotal, options: options, delegate: probe)
            sessions.append(session)
            downloads.append(download)
            download.start()
        }
    }

    /// Runs `body` on the thread and waits for it.
    func onThread<T>(_ body: @escaping () -> T) -> T {
        let result = LockedBox<T?>(nil)
        let done = DispatchSemaphore(value: 0)
        let job = LockedBox(body)
        thread.perform {
            result.value = job.value()
            done.signal()
        }
        done.wait()
        return result.value!
    }

    /// The download started last (read on the thread).
    var lastDownload: (state: FileDownload.State, received: Int64, requests: Int, total: Int64?) {
        onThread { [self] in
            let download = downloads.last!
            return (download.state, download.receivedBytes, download.requests, download.totalBytes)
        }
    }

    func close() {
        thread.perform { [self] in
            for download in downloads { download.cancel() }
            downloads.removeAll()
            sessions.removeAll()
        }
        thread.waitUntilIdle()
        thread.finish()
    }
}

/// A value shared by the test thread and the harness's thread, behind a lock: the lock
/// orders the two sides where ThreadSanitizer sees it (a semaphore's futex it may not).
final class LockedBox<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value
    init(_ value: Value) { stored = value }
    var value: Value {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}

extension FileDownloadOptions {
    /// Short waits: 1 s of silence is a stall, retries from 20 ms, no jitter (so delays can be
    /// asserted).
    static var fastTests: FileDownloadOptions {
        FileDownloadOptions(stallTimeout: .seconds(1),
                            backoff: DownloadBackoff(initial: .milliseconds(20), maximum: .seconds(2), jitter: 0))
    }
}

/// Random files for the downloads in a temporary folder of their own (made in a test
/// class's `setUp`, removed with `remove()` in its `tearDown`).
final class DownloadFixtures: @unchecked Sendable {
    let folder: URL
    /// name → size in bytes.
    let sizes: [String: Int]

    init(_ sizes: [String: Int]) throws {
        self.sizes = sizes
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("marquee-download-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let random = try XCTUnwrap(FileHandle(forReadingAtPath: "/dev/urandom"))
        defer { try? random.close() }
        for (name, size) in sizes {
            try random.readData(ofLength: size).write(to: folder.appendingPathComponent(name))
        }
    }

    func contents(_ name: String) throws -> Data { try Data(contentsOf: folder.appendingPathComponent(name)) }

    func remove() { try? FileManager.default.removeItem(at: folder) }
}
