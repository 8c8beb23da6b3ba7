@testable import HTTPFetch
import XCTest

final class ProxiedBodyTests: XCTestCase {
    private func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    func testThePlaylistTypesAreReadWholeWithoutLookingAtTheBody() {
        for type in ["application/vnd.apple.mpegurl", "application/x-mpegurl", "audio/mpegurl", "audio/x-mpegurl"] {
            XCTAssertEqual(ProxiedBody.kind(mediaType: type, prefix: [], complete: false), .playlist, type)
        }
    }

    func testMediaTypesStreamAtOnceWhateverTheBody() {
        for type in ["video/mp4", "video/mp2t", "audio/aac", "application/mp4", "image/jpeg"] {
            XCTAssertEqual(ProxiedBody.kind(mediaType: type, prefix: [], complete: false), .passThrough, type)
            XCTAssertEqual(ProxiedBody.kind(mediaType: type, prefix: bytes("#EXTM3U\n"), complete: false), .passThrough, type)
        }
    }

    func testAGenericOrMissingTypeIsDecidedByTheFirstBytes() {
        for type in [nil, "application/octet-stream", "text/plain", "binary/octet-stream"] as [String?] {
            let label = type ?? "none"
            XCTAssertEqual(ProxiedBody.kind(mediaType: type, prefix: [], complete: false), .undecided, label)
            XCTAssertEqual(ProxiedBody.kind(mediaType: type, prefix: bytes("#EXT"), complete: false), .undecided, label)
            XCTAssertEqual(ProxiedBody.kind(mediaType: type, prefix: bytes("#EXTM3U\n#EXT-X-VERSION:3\n"), complete: false), .playlist, label)
            // A byte-order mark and blank lines before the tag.
            XCTAssertEqual(ProxiedBody.kind(mediaType: type, prefix: [0xEF, 0xBB, 0xBF] + bytes("\r\n #EXTM3U"), complete: false), .playlist, label)
            // An MP4's first box, a transport stream's sync byte: settled by the first byte.
            XCTAssertEqual(ProxiedBody.kind(mediaType: type, prefix: [0, 0, 0, 0x20] + bytes("ftypisom"), complete: false), .passThrough, label)
            XCTAssertEqual(ProxiedBody.kind(mediaType: type, prefix: [0x47], complete: false), .passThrough, label)
            // A whole body shorter than the tag is not a playlist.
            XCTAssertEqual(ProxiedBody.kind(mediaType: type, prefix: bytes("#EXT"), complete: true), .passThrough, label)
            XCTAssertEqual(ProxiedBody.kind(mediaType: type, prefix: [], complete: true), .passThrough, label)
        }
    }

    func testWhitespaceWithoutEndIsNotWaitedOnForEver() {
        let blank = [UInt8](repeating: 0x20, count: ProxiedBody.sniffLimit + 1)
        XCTAssertEqual(ProxiedBody.kind(mediaType: nil, prefix: Array(blank.prefix(100)), complete: false), .undecided)
        XCTAssertEqual(ProxiedBody.kind(mediaType: nil, prefix: blank, complete: false), .passThrough)
    }
}

final class StreamFlowTests: XCTestCase {
    func testAReaderThatNeverTakesAChunkHoldsTheOriginAtTheWindow() {
        var flow = StreamFlow(window: 3)
        var actions = flow.start(prefilled: 0, ended: false)
        var reads = 0
        // The origin answers every read at once; the client writes nothing.
        while actions.contains(.read) {
            reads += 1
            XCTAssertLessThanOrEqual(reads, 10, "reads ran away")
            actions = flow.readFinished(.chunk)
            XCTAssertTrue(actions.contains(.append))
        }
        XCTAssertEqual(reads, 3)
        XCTAssertEqual(flow.unwritten, 3)
        // Each chunk the client takes lets one more be read.
        XCTAssertEqual(flow.wroteChunk(), [.read])
        XCTAssertEqual(flow.readFinished(.chunk), [.append])
        XCTAssertEqual(flow.unwritten, 3)
    }

    func testOneReadAtATime() {
        var flow = StreamFlow(window: 4)
        XCTAssertEqual(flow.start(prefilled: 0, ended: false), [.read])
        // Chunks written while a read is in flight start no second read.
        XCTAssertEqual(flow.wroteChunk(), [])
        XCTAssertEqual(flow.readFinished(.chunk), [.append, .read])
    }

    func testChunksReadWhileDecidingCountAgainstTheWindow() {
        var flow = StreamFlow(window: 2)
        XCTAssertEqual(flow.start(prefilled: 2, ended: false), [])
        XCTAssertEqual(flow.wroteChunk(), [.read])
    }

    func testTheEndCompletesAndAFailureAbortsAndNothingIsReadAfter() {
        var flow = StreamFlow(window: 2)
        _ = flow.start(prefilled: 0, ended: false)
        XCTAssertEqual(flow.readFinished(.end), [.complete])
        XCTAssertEqual(flow.wroteChunk(), [])

        var broken = StreamFlow(window: 2)
        _ = broken.start(prefilled: 0, ended: false)
        _ = broken.readFinished(.chunk)
        XCTAssertEqual(broken.readFinished(.failure), [.abort])
        XCTAssertEqual(broken.wroteChunk(), [])

        var whole = StreamFlow(window: 2)
        XCTAssertEqual(whole.start(prefilled: 1, ended: true), [.complete])
    }
}
