import Foundation
import GLibRuntime
@testable import HTTPFetch
import MarqueeClient
import TestMedia
import XCTest

/// Requests for one key share one POST (`KeyRequestCoalescer`), in the book-keeping and
/// through the real header proxy with a real key service; and a key request ends within its
/// deadline however the key service behaves.
final class KeyRequestCoalescerTests: XCTestCase {
    typealias Coalescer = KeyRequestCoalescer<String, String, Int>

    func testTheFirstRequestStartsTheFetchAndLaterOnesWaitForIt() {
        var c = Coalescer()
        let first = c.join("k1", "video")
        XCTAssertTrue(first.startsFetch)
        c.started("k1", fetch: 7)
        let second = c.join("k1", "audio")
        XCTAssertFalse(second.startsFetch, "the same key while it is fetched: no second fetch")
        XCTAssertNotEqual(first.id, second.id)
        XCTAssertTrue(c.join("k2", "video").startsFetch, "another key has a fetch of its own")
        XCTAssertEqual(c.inFlight, 2)
        XCTAssertEqual(c.finish("k1"), ["video", "audio"], "every waiter gets the answer, in arrival order")
        XCTAssertEqual(c.waiting(for: "k1"), 0)
        XCTAssertTrue(c.join("k1", "again").startsFetch, "after the answer, a new request fetches anew")
    }

    func testTheFetchIsCancelledOnlyWhenTheLastWaiterLeaves() {
        var c = Coalescer()
        let a = c.join("k", "a")
        c.started("k", fetch: 42)
        let b = c.join("k", "b")
        XCTAssertNil(c.leave("k", id: a.id), "b still waits: the fetch goes on")
        XCTAssertEqual(c.waiting(for: "k"), 1)
        XCTAssertEqual(c.leave("k", id: b.id), 42, "nobody waits: cancel it")
        XCTAssertEqual(c.inFlight, 0)
        XCTAssertEqual(c.finish("k"), [], "an answer after that has nobody to answer")
        XCTAssertNil(c.leave("k", id: b.id), "leaving twice cancels nothing")
    }
}

final class KeyDeliveryTests: XCTestCase {
    private var keyService: AnalyticsCollector!

    override func setUpWithError() throws {
        keyService = try AnalyticsCollector()
    }

    override func tearDown() { keyService.stop() }

    /// GETs `url` from `count` threads at once; the bodies, in any order.
    private func concurrentGets(_ urls: [String]) -> [HTTPResponse?] {
        let results = ResultBox(count: urls.count)
        DispatchQueue.concurrentPerform(iterations: urls.count) { i in
            let url = urls[i]
            let slash = url.range(of: "/k/")!.lowerBound
            let client = HTTPClient(baseURL: String(url[..<slash]), timeout: 10)
            results.set(i, try? client.get(String(url[slash...])))
        }
        return results.values
    }

    func testConcurrentRequestsForOneKeyArePostedForOnce() throws {
        // Slow enough that every request arrives while the first POST is in flight.
        keyService.respond { post in
            let uri = post.json?["keyUri"] as? String ?? ""
            return PostReply(status: 200, contentType: "application/octet-stream", body: Data(Self.key(for: uri)), delay: 0.5)
        }
        let proxy = LoopbackProxy(userAgent: "marquee-test")
        let service = KeyService(url: keyService.url, contentId: "c1", userId: "u1")
        let first = try proxy.register(.init(headers: [:], keyHeaders: [:], keyService: service))
        let second = try proxy.register(.init(headers: [:], keyHeaders: [:], keyService: service))
        defer { proxy.unregister(first); proxy.unregister(second) }

        // Four requests for key A of the first session (audio and video, asked twice), one
        // for key B, and one for key A of another session.
        let urls = Array(repeating: proxy.url(for: "skd://c1/a", token: first, isKey: true), count: 4)
            + [proxy.url(for: "skd://c1/b", token: first, isKey: true), proxy.url(for: "skd://c1/a", token: second, isKey: true)]
        let answers = concurrentGets(urls)
        for (i, answer) in answers.enumerated() {
            XCTAssertEqual(answer?.status, 200, "request \(i)")
        }
        XCTAssertEqual(Set(answers.prefix(4).map { $0?.body }), [Data(Self.key(for: "skd://c1/a"))], "the waiters share the answer")
        XCTAssertEqual(answers[4]?.body, Data(Self.key(for: "skd://c1/b")))

        let asked = keyService.posts.compactMap { $0.json?["keyUri"] as? String }
        XCTAssertEqual(asked.sorted(), ["skd://c1/a", "skd://c1/a", "skd://c1/b"],
                       "one POST per key URI and session: \(asked)")

        // Once answered, the key comes from the session's cache.
        let again = concurrentGets([urls[0]])
        XCTAssertEqual(again.first??.body, Data(Self.key(for: "skd://c1/a")))
        XCTAssertEqual(keyService.posts.count, 3)
    }

    /// A key service that never answers: the request ends `unavailable` at its deadline,
    /// not after 4 x the client's 5 s timeout (hlsdemux2 gives up on a key after 10 s).
    func testAKeyServiceThatHangsIsUnavailableAtTheDeadline() throws {
        keyService.respond { _ in PostReply(status: 200, contentType: "application/octet-stream", body: Data(count: 16), delay: 2) }
        let thread = ServiceThread(name: "key-test")
        defer { thread.finish() }
        let client = KeyServiceClient(thread: thread, userAgent: "marquee-test", deadline: 1)
        let service = KeyService(url: keyService.url, contentId: "c1", userId: nil)
        let done = DispatchSemaphore(value: 0)
        let outcome = OutcomeBox()
        let started = Date()
        thread.perform {
            _ = client.fetch("skd://c1/a", from: service) { result in
                outcome.value = result
                done.signal()
            }
        }
        XCTAssertEqual(done.wait(timeout: .now() + 5), .success, "no answer at all")
        let elapsed = Date().timeIntervalSince(started)
        XCTAssertEqual(outcome.value, .unavailable("the key service did not answer for skd://c1/a within 1 s"))
        XCTAssertLessThan(elapsed, 2.5, "ended at the deadline, not at the POST's timeout")
        XCTAssertGreaterThanOrEqual(elapsed, 0.9)
        XCTAssertEqual(keyService.posts.count, 1, "the POST in flight was cancelled, not retried")
    }

    func testNoRetryStartsPastTheDeadline() {
        let failure = FetchError(message: "busy", status: 503)
        XCTAssertEqual(KeyRetryPolicy.decide(.failure(failure), keyURI: "skd://k", attempt: 1, elapsed: 6.5, deadline: 8),
                       .retry(afterMilliseconds: 1000))
        guard case .done(.unavailable) = KeyRetryPolicy.decide(.failure(failure), keyURI: "skd://k", attempt: 1, elapsed: 7.2, deadline: 8) else {
            return XCTFail("a retry 1 s after 7.2 s would pass the 8 s deadline")
        }
    }

    /// A distinct 16-byte key per key URI.
    static func key(for uri: String) -> [UInt8] {
        Array((String(uri.reversed()) + String(repeating: "-", count: 16)).utf8.prefix(16))
    }
}

private final class ResultBox: @unchecked Sendable {
    private let lock = NSLock()
    private var results: [HTTPResponse?]
    init(count: Int) { results = Array(repeating: nil, count: count) }
    func set(_ i: Int, _ value: HTTPResponse?) { lock.withLock { results[i] = value } }
    var values: [HTTPResponse?] { lock.withLock { results } }
}

private final class OutcomeBox: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: KeyOutcome?
    var value: KeyOutcome? {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}
