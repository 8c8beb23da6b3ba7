@testable import PlayerCore
import Subtitles
import XCTest

final class SubtitleScheduleTests: XCTestCase {
    private let schedule = SubtitleSchedule(cues: [
        Cue(start: 5, end: 6, text: "late"),
        Cue(start: 1, end: 2, text: "<i>one</i>"),
        Cue(start: 1.5, end: 3, text: "overlap"),
        Cue(start: 3, end: 3, text: "empty span is dropped"),
        Cue(start: 10, end: 40, text: "long"),
        Cue(start: 12, end: 13, text: "inside long"),
    ])

    func testActiveCuesAtBoundaries() {
        XCTAssertEqual(schedule.active(at: 0.99).map(\.text), [])
        XCTAssertEqual(schedule.active(at: 1).map(\.text), ["<i>one</i>"])
        XCTAssertEqual(schedule.active(at: 1.7).map(\.text), ["<i>one</i>", "overlap"])
        XCTAssertEqual(schedule.active(at: 2).map(\.text), ["overlap"], "the end is exclusive")
        XCTAssertEqual(schedule.active(at: 3).map(\.text), [])
        XCTAssertEqual(schedule.active(at: 12.5).map(\.text), ["long", "inside long"], "a long cue is found behind later ones")
        XCTAssertEqual(schedule.active(at: 20).map(\.text), ["long"])
        XCTAssertEqual(schedule.active(at: 50).map(\.text), [])
    }

    func testNextChangeWalksEveryBoundary() {
        var times: [Double] = []
        var t = -1.0
        while let next = schedule.nextChange(after: t) {
            times.append(next)
            t = next
        }
        XCTAssertEqual(times, [1, 1.5, 2, 3, 5, 6, 10, 12, 13, 40])
    }

    func testShownStacksOverlapsAndSpansUntilTheNextChange() throws {
        let shown = try XCTUnwrap(schedule.shown(at: 1.7))
        XCTAssertEqual(shown.plainText, "one\noverlap")
        XCTAssertEqual(shown.markup, "<i>one</i>\noverlap")
        XCTAssertEqual(shown.start, 1.5)
        XCTAssertEqual(shown.end, 2)
        XCTAssertNil(schedule.shown(at: 4))
    }

    func testBasicMarkupKeepsBoldItalicUnderlineBalancedAndEscapesTheRest() {
        XCTAssertEqual(Cue(start: 0, end: 1, text: "<I>a</I> &amp; <font color=\"red\">b</font> <c.x>c</c>").basicMarkup, "<i>a</i> &amp; b c")
        XCTAssertEqual(Cue(start: 0, end: 1, text: "<b>bold <i>both</b> italic").basicMarkup, "<b>bold <i>both</i></b><i> italic</i>")
        XCTAssertEqual(Cue(start: 0, end: 1, text: "1 &lt; 2 & 3 > 2 $$x^2$$").basicMarkup, "1 &lt; 2 &amp; 3 &gt; 2 $$x^2$$")
        XCTAssertEqual(Cue(start: 0, end: 1, text: "</b>stray close, <u>unclosed").basicMarkup, "stray close, <u>unclosed</u>")
        XCTAssertEqual(Cue(start: 0, end: 1, text: "cut <b").basicMarkup, "cut ")
    }
}
