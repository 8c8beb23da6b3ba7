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

    func testUnrecognisedBytesAreUnsupportedFormat() {
        // What typefind posts for random bytes, and parsebin for a text file (GStreamer 1.22).
        let nothing = GStreamerError(domain: .stream, code: Int32(GST_STREAM_ERROR_TYPE_NOT_FOUND.rawValue),
                                     message: "Could not determine type of stream.")
        XCTAssertEqual(APIError(pipelineError: nothing, remote: false),
                       APIError(.unsupportedFormat, "typefind found nothing: Could not determine type of stream."))
        XCTAssertEqual(APIError(pipelineError: nothing, remote: true).code, .unsupportedFormat)
        let text = GStreamerError(domain: .stream, code: Int32(GST_STREAM_ERROR_WRONG_TYPE.rawValue), message: "This appears to be a text file")
        XCTAssertEqual(APIError(pipelineError: text, remote: false).code, .unsupportedFormat)
        XCTAssertEqual(APIError(pipelineError: text, remote: false).explained(by: TypeFound(mediaType: "text/plain", probability: 95)).message,
                       "not audio or video: typefind found text/plain with probability 95% (This appears to be a text file)")
        // Broken real media stays media_error.
        let demux = GStreamerError(domain: .stream, code: Int32(GST_STREAM_ERROR_DEMUX.rawValue), message: "This file contains no playable streams.")
        XCTAssertEqual(APIError(pipelineError: demux, remote: false).code, .mediaError)
    }

    func testTypeFoundExplainsOnlyGuessesAndTextTypes() {
        let failed = APIError(.mediaError, "Internal data stream error.")
        XCTAssertEqual(failed.explained(by: nil), failed)
        XCTAssertEqual(failed.explained(by: TypeFound(mediaType: "video/quicktime", probability: 100)), failed)
        XCTAssertEqual(failed.explained(by: TypeFound(mediaType: "audio/mpeg", probability: 80)), failed)
        XCTAssertEqual(failed.explained(by: TypeFound(mediaType: "audio/mpeg", probability: 10)),
                       APIError(.unsupportedFormat, "not audio or video: typefind found only audio/mpeg with probability 10% (Internal data stream error.)"))
        XCTAssertEqual(failed.explained(by: TypeFound(mediaType: "application/x-subtitle-lrc", probability: 100)).code, .unsupportedFormat)
        let network = APIError(.networkError, "x")
        XCTAssertEqual(network.explained(by: TypeFound(mediaType: "audio/mpeg", probability: 10)), network)

        XCTAssertNil(APIError.unsupportedFormat(weak: nil))
        XCTAssertNil(APIError.unsupportedFormat(weak: TypeFound(mediaType: "audio/mpeg", probability: 50)))
        XCTAssertEqual(APIError.unsupportedFormat(weak: TypeFound(mediaType: "audio/x-foo", probability: 10))?.message,
                       "not audio or video: typefind found only audio/x-foo with probability 10%")
    }

    func testACollectionWithoutAudioOrVideoIsNotMedia() {
        let pdf = [MediaStream(id: "a", kind: .other, codec: "application/pdf")]
        XCTAssertEqual(APIError.unsupportedFormat(streams: pdf, found: TypeFound(mediaType: "application/pdf", probability: 80)),
                       APIError(.unsupportedFormat, "not audio or video: typefind found application/pdf with probability 80%"))
        XCTAssertEqual(APIError.unsupportedFormat(streams: pdf, found: nil)?.message, "not audio or video: found application/pdf")
        XCTAssertNotNil(APIError.unsupportedFormat(streams: [MediaStream(id: "t", kind: .text)], found: nil))
        XCTAssertNil(APIError.unsupportedFormat(streams: [], found: nil), "no collection yet")
        XCTAssertNil(APIError.unsupportedFormat(streams: pdf + [MediaStream(id: "v", kind: .video)], found: nil))
        XCTAssertNil(APIError.unsupportedFormat(streams: [MediaStream(id: "s", kind: .audio)], found: nil))
    }

    func testTypeFoundIsReadFromItsBusMessage() {
        let event = BusEvent.element(name: TypeFound.messageName, source: "typefind",
                                     fields: ["media-type": "application/zip", "probability": "80"])
        XCTAssertEqual(TypeFound(event), TypeFound(mediaType: "application/zip", probability: 80))
        XCTAssertNil(TypeFound(.element(name: "missing-plugin", source: "parsebin0", fields: [:])))
    }
}
