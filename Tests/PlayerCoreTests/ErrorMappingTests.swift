import ControlAPI
import CGStreamer
import GStreamerKit
@testable import PlayerCore
import XCTest

final class ErrorMappingTests: XCTestCase {
    func testDomainsMapToStableCodes() {
        let notFound = GStreamerError(domain: .resource, code: 3, message: "Not Found", debug: "Not Found (404), URL: http://x/a.m3u8")
        XCTAssertEqual(APIError(pipelineError: notFound, remote: true), APIError(.networkError, "HTTP 404: Not Found"))
        XCTAssertEqual(APIError(pipelineError: notFound, remote: false).code, .notFound)
        let demux = GStreamerError(domain: .stream, code: 9, message: "no playable streams")
        XCTAssertEqual(APIError(pipelineError: demux, remote: false).code, .mediaError)
        let core = GStreamerError(domain: .core, code: 1, message: "failed")
        XCTAssertEqual(APIError(pipelineError: core, remote: false).code, .pipelineError)
    }

    func testHTTPStatusIsFoundOnlyWhereItIsOne() {
        XCTAssertEqual(APIError.httpStatus(in: "Service Unavailable (503), URL: x"), 503)
        XCTAssertEqual(APIError.httpStatus(in: "(12) (200) (abc) then (404)"), 404)
        XCTAssertNil(APIError.httpStatus(in: "gstsouphttpsrc.c(1234): no status"))
        XCTAssertNil(APIError.httpStatus(in: "../ext/soup/gstsouphttpsrc.c(512): gst_soup_http_src_parse_status"))
        XCTAssertEqual(APIError.httpStatus(in: "../gstsouphttpsrc.c(512): x: Not Found (404), URL: y"), 404)
        XCTAssertNil(APIError.httpStatus(in: "("))
        XCTAssertNil(APIError.httpStatus(in: ""))
    }

    func testMissingPluginsAreNamed() {
        // playbin3's error after a missing decoder says nothing of it: the notes do.
        let notLinked = GStreamerError(domain: .stream, code: 1, message: "Internal data stream error.")
        let mapped = APIError(pipelineError: notLinked, remote: false, missingPlugins: ["Theora decoder", "Vorbis decoder", "Theora decoder"])
        XCTAssertEqual(mapped.code, .missingPlugin)
        XCTAssertTrue(mapped.message.contains("Theora decoder, Vorbis decoder"), mapped.message)
        let core = GStreamerError(domain: .core, code: Int32(GST_CORE_ERROR_MISSING_PLUGIN.rawValue), message: "no element \"x264enc\"")
        XCTAssertEqual(APIError(pipelineError: core, remote: false).code, .missingPlugin)

        var notes = MissingPluginNotes()
        XCTAssertFalse(notes.note(.element(name: "adaptive-streaming-statistics", source: "d", fields: [:])))
        XCTAssertTrue(notes.note(.element(name: "missing-plugin", source: "parsebin0", fields: ["type": "decoder", "name": "Theora decoder"])))
        XCTAssertTrue(notes.note(.element(name: "missing-plugin", source: "decodebin3-0", fields: ["type": "decoder", "name": "Theora decoder"])))
        XCTAssertEqual(notes.names, ["Theora decoder"])
    }
}
