import GLibRuntime
import Logging

/// Downloads one URL into a `DownloadDestination`, resuming from what the destination has
/// stored: a request asks for `Range: bytes=storedBytes-`, and every fault (refused, reset,
/// timed out, stalled, cut short, 5xx, 408, 429) asks again from what is stored after a
/// backoff. The body is streamed in reads of `options.readSize` and never held; it is
/// committed every `commitBytes`, and `commitInterval` after the first byte not yet
/// committed at the latest, so a crash loses at most that.
///
/// Everything runs on the `session`'s thread: made, started, cancelled and released there;
/// the delegate is called there. Nothing here blocks that thread on the network: libsoup's
/// asynchronous calls and timers on the thread's own context. The destination's writes and
/// fsyncs do run on it, which is why downloads have a thread of their own.
public final class FileDownload {
    public enum State: Sendable, Equatable {
        /// Made, not started.
        case idle
        /// A request is out; its response's head has not arrived.
        case requesting
        /// Reading the body (or waiting for the rate limiter between reads).
        case receiving
        /// After a fault, until the backoff has passed.
        case waitingToRetry
        case finished
        case failed
        case cancelled
    }

    public let url: String
    public private(set) var state: State = .idle
    /// The file's full size, once known (from the owner, or a response).
    public private(set) var totalBytes: Int64?
    /// Body bytes that came over the network, all requests together (restarts included).
    public private(set) var receivedBytes: Int64 = 0
    /// Requests sent so far.
    public private(set) var requests = 0
    /// Held weakly: the owner keeps both.
    public weak var delegate: FileDownloadDelegate?

    private let headers: [String: String]
    private let destination: DownloadDestination
    private let session: DownloadSession
    private let options: FileDownloadOptions
    private let log = Logger(category: "download")
    private var exchange: DownloadExchange?
    /// Where the current request asked the body to start.
    private var requestedFrom: Int64 = 0
    private var failuresInARow = 0
    /// The retry's backoff, or the rate limiter's wait before the next read.
    private var timer: ThreadTimer?
    private var watchdog: ThreadTimer?
    /// Commits what is pending `commitInterval` after its first byte, however slowly the
    /// rest comes.
    private var commitTimer: ThreadTimer?
    /// The last sign of life from the origin (a byte, a head), or when we last asked it.
    private var lastActivity = ContinuousClock.now
    private var reportedTotal: Int64?
    private var toldOfRestart = false

    /// On the session's thread. `headers` are the item's (validated by the caller; `Range`,
    /// `If-Range` and `Accept-Encoding` are the download's own). `knownTotal`: the size a
    /// previous run learned, so that a resume finding the file complete (416) knows it.
    public init(url: String, headers: [String: String] = [:], destination: DownloadDestination,
                session: DownloadSession, knownTotal: Int64? = nil, options: FileDownloadOptions = FileDownloadOptions(),
                delegate: FileDownloadDelegate? = nil) {
        self.url = url
        self.headers = headers
        self.destination = destination
        self.session = session
        self.options = options
        self.delegate = delegate
        totalBytes = knownTotal
        reportedTotal = knownTotal
    }

    deinit {
        exchange?.close()
    }

    /// Plaintext bytes durably stored so far.
    public var storedBytes: Int64 { destination.storedBytes }

    /// True until the download finished, failed or was cancelled.
    public var isActive: Bool {
        switch state {
        case .idle, .requesting, .receiving, .waitingToRetry: return true
        case .finished, .failed, .cancelled: return false
        }
    }

    /// Sends the first request. Its outcome comes through the delegate, never inline.
    public func start() {
        precondition(session.thread.isCurrent, "a FileDownload runs on its session's thread")
        guard state == .idle else { return }
        request()
    }

    /// Stops at once (pause, delete, shutdown): commits what was received, so a resume
    /// wastes nothing, then drops the connection. The delegate hears nothing after this.
    public func cancel() {
        precondition(session.thread.isCurrent, "a FileDownload runs on its session's thread")
        guard isActive else { return }
        state = .cancelled
        stopActivity()
        guard destination.pendingBytes > 0 else { return }
        do {
            try destination.commit()
        } catch {
            log.warning("could not commit a cancelled download", ["url": Self.redacted(url), "error": "\(error)"])
        }
    }

    // MARK: Requests

    private func request() {
        timer = nil
        // Nothing is pending here: each response's bytes are committed before the next.
        let offset = destination.storedBytes
        let scheme = url.prefix(while: { $0 != ":" }).lowercased()
        guard scheme == "http" || scheme == "https",
              let exchange = DownloadExchange(url: url, headers: headers, userAgent: session.userAgent, offset: offset) else {
            // Told through a timer: the owner never hears of the outcome inside start().
            timer = ThreadTimer(on: session.thread, after: .zero) { [weak self] in
                self?.end(failing: DownloadFailure(code: "invalid_source", message: "not an http(s) URL"))
            }
            return
        }
        self.exchange = exchange
        requestedFrom = offset
        requests += 1
        state = .requesting
        lastActivity = .now
        armWatchdog(after: options.stallTimeout)
        exchange.send(on: session) { [weak self] response in self?.received(response) }
    }

    private func received(_ response: DownloadExchange.Response) {
        switch response {
        case .failed(let message):
            retry(DownloadFailure(code: "network", message: message))
        case .head(let status, let headers):
            lastActivity = .now
            follow(ResponsePlan.plan(status: status, offset: requestedFrom, headers: headers, knownTotal: totalBytes),
                   status: status)
        }
    }

    private func follow(_ plan: ResponsePlan, status: Int) {
        switch plan {
        case .fail(let failure):
            end(failing: failure)
        case .retry(let failure, let retryAfter):
            retry(failure, retryAfter: retryAfter)
        case .complete(let total):
            guard learn(total: total) else { return }
            finish()
        case .startOver:
            log.info("the origin's file is shorter than what is stored; starting again from byte 0",
                     ["url": Self.redacted(url), "stored": "\(requestedFrom)"])
            guard restartDestination() else { return }
            exchange?.close()
            exchange = nil
            request()
        case .body(let restart, let total):
            if restart {
                if !toldOfRestart {
                    toldOfRestart = true
                    log.info("the origin ignored the Range request; starting again from byte 0",
                             ["url": Self.redacted(url), "stored": "\(requestedFrom)", "status": "\(status)"])
                }
                guard restartDestination() else { return }
            }
            if let total {
                guard learn(total: total) else { return }
            }
            state = .receiving
            readNext()
        }
    }

    /// Records the total and tells the owner, who may stop here. False when the download
    /// ended meanwhile.
    private func learn(total: Int64) -> Bool {
        totalBytes = total
        guard total != reportedTotal else { return true }
        reportedTotal = total
        if let failure = delegate?.download(self, learnedTotal: total) {
            if isActive { end(failing: failure) }
            return false
        }
        return isActive
    }

    private func restartDestination() -> Bool {
        do {
            try destination.restart()
            return true
        } catch {
            end(failing: DownloadFailure(code: "storage", message: "could not start the file again: \(error)"))
            return false
        }
    }

    // MARK: The body

    private func readNext() {
        guard state == .receiving else { return }
        if let limiter = session.rateLimiter {
            let wait = limiter.delayBeforeRead()
            if wait > .zero {
                timer = ThreadTimer(on: session.thread, after: wait) { [weak self] in
                    self?.timer = nil
                    self?.readNow()
                }
                return
            }
        }
        readNow()
    }

    private func readNow() {
        guard state == .receiving, let exchange else { return }
        lastActivity = .now
        let size = session.rateLimiter?.readSize(upTo: options.readSize) ?? options.readSize
        exchange.read(count: size) { [weak self] chunk in self?.received(chunk) }
    }

    private func received(_ chunk: DownloadExchange.Chunk) {
        switch chunk {
        case .bytes(let bytes):
            do {
                try destination.append(bytes)
            } catch {
                end(failing: DownloadFailure(code: "storage", message: "could not write the file: \(error)"))
                return
            }
            receivedBytes += Int64(bytes.count)
            failuresInARow = 0
            lastActivity = .now
            session.rateLimiter?.consume(bytes.count)
            if destination.pendingBytes >= options.commitBytes {
                guard commit() else { return }
            } else if commitTimer == nil {
                commitTimer = ThreadTimer(on: session.thread, after: options.commitInterval) { [weak self] in
                    guard let self, state == .receiving else { return }
                    _ = commit()
                }
            }
            readNext()
        case .end:
            bodyEnded()
        case .failed(let message):
            guard commit() else { return }  // what arrived is kept
            retry(DownloadFailure(code: "network", message: message))
        }
    }

    private func bodyEnded() {
        guard commit() else { return }
        let stored = destination.storedBytes
        if let total = totalBytes {
            if stored < total {
                retry(DownloadFailure(code: "network", message: "the body ended after \(stored) of \(total) bytes"))
                return
            }
            if stored > total {
                end(failing: DownloadFailure(code: "origin_error",
                                             message: "the origin sent \(stored) bytes of a file of \(total)"))
                return
            }
        } else {
            totalBytes = stored  // a body without a declared length ends where the origin closes it
        }
        finish()
    }

    /// Makes what was appended durable and tells the owner. False when the download ended
    /// meanwhile (a write failed, or the owner cancelled).
    private func commit() -> Bool {
        commitTimer = nil
        guard destination.pendingBytes > 0 else { return true }
        do {
            try destination.commit()
        } catch {
            end(failing: DownloadFailure(code: "storage", message: "could not commit the file: \(error)"))
            return false
        }
        delegate?.download(self, stored: destination.storedBytes)
        return isActive
    }

    // MARK: Faults and endings

    /// No byte for `stallTimeout`: the origin (or the path to it) went silent without
    /// closing; abort and ask again. Checked lazily: activity only moves a timestamp.
    private func armWatchdog(after delay: Duration) {
        watchdog = ThreadTimer(on: session.thread, after: delay) { [weak self] in self?.checkForStall() }
    }

    private func checkForStall() {
        guard state == .requesting || state == .receiving else { return }
        if timer != nil {  // the rate limiter holds the next read: not the origin's silence
            armWatchdog(after: options.stallTimeout)
            return
        }
        let quiet = ContinuousClock.now - lastActivity
        guard quiet >= options.stallTimeout else {
            armWatchdog(after: options.stallTimeout - quiet)
            return
        }
        guard commit() else { return }
        retry(DownloadFailure(code: "network", message: "no data from the origin for \(options.stallTimeout.seconds) s"))
    }

    private func retry(_ failure: DownloadFailure, retryAfter: Duration? = nil) {
        stopActivity()
        failuresInARow += 1
        var delay = options.backoff.delay(afterFailures: failuresInARow)
        if let retryAfter { delay = min(max(delay, retryAfter), options.backoff.maximum) }
        state = .waitingToRetry
        log.info("download fault; retrying", ["url": Self.redacted(url), "reason": failure.description,
                                              "stored": "\(destination.storedBytes)", "in": "\(delay.seconds)"])
        delegate?.download(self, willRetryIn: delay, after: failure)
        guard state == .waitingToRetry else { return }  // cancelled by the owner
        timer = ThreadTimer(on: session.thread, after: delay) { [weak self] in self?.request() }
    }

    private func finish() {
        state = .finished
        stopActivity()
        delegate?.downloadFinished(self)
    }

    private func end(failing failure: DownloadFailure) {
        state = .failed
        stopActivity()
        log.warning("download failed", ["url": Self.redacted(url), "reason": failure.description])
        delegate?.download(self, failed: failure)
    }

    private func stopActivity() {
        exchange?.close()
        exchange = nil
        timer = nil
        watchdog = nil
        commitTimer = nil
    }

    /// The URL without its query: signed URLs carry their credentials there.
    static func redacted(_ url: String) -> String {
        url.firstIndex(of: "?").map { String(url[..<$0]) + "?…" } ?? url
    }
}
