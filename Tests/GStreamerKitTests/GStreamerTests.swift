import GLibTestSupport
import GStreamerKit
import XCTest

final class GStreamerTests: GStreamerTestCase {
    func testVersion() {
        XCTAssertTrue(GStreamer.version.hasPrefix("1."), GStreamer.version)
        XCTAssertEqual(GStreamer.version.split(separator: ".").count, 3)
    }

    func testHasElement() {
        XCTAssertTrue(GStreamer.hasElement("fakesink"))
        XCTAssertTrue(GStreamer.hasElement("playbin3"))
        XCTAssertFalse(GStreamer.hasElement("nope"))
    }

    func testElementFactory() throws {
        XCTAssertNil(Element(factory: "nope"))
        let sink = try XCTUnwrap(Element(factory: "fakesink", name: "out"))
        XCTAssertEqual(sink.name, "out")
        XCTAssertTrue(sink.hasProperty("sync"))
        XCTAssertFalse(sink.hasProperty("no-such-property"))
        sink.set("sync", true)
        XCTAssertTrue(sink.bool("sync"))
        sink.set("sync", false)
        XCTAssertFalse(sink.bool("sync"))
        let volume = try XCTUnwrap(Element(factory: "volume"))
        volume.set("volume", 0.25)
        XCTAssertEqual(volume.double("volume"), 0.25)
    }

    func testClockTimeConversions() {
        XCTAssertEqual(ClockTime.second, 1_000_000_000)
        XCTAssertEqual(ClockTime.none, UInt.max)
        XCTAssertEqual(ClockTime.nanoseconds(1), 1_000_000_000)
        XCTAssertEqual(ClockTime.nanoseconds(2.5), 2_500_000_000)
        XCTAssertEqual(ClockTime.nanoseconds(0), 0)
        XCTAssertEqual(ClockTime.nanoseconds(1.0 / 3), 333_333_333)
        XCTAssertEqual(ClockTime.seconds(2_500_000_000), 2.5)
        XCTAssertEqual(ClockTime.seconds(0), 0)
        XCTAssertNil(ClockTime.seconds(-1), "GST_CLOCK_TIME_NONE as a gint64")
        XCTAssertNil(ClockTime.seconds(Int(bitPattern: ClockTime.none)))
        XCTAssertNil(ClockTime.seconds(-5))
        let roundTrip = ClockTime.seconds(ClockTime.nanoseconds(123.456))
        XCTAssertEqual(roundTrip ?? 0, 123.456, accuracy: 1e-9)
    }
}
