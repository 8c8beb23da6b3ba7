import Foundation
import GLibRuntime
import GStreamerKit
import XCTest


/// Bus events collected by a `BusWatch` handler, in arrival order. GLib thread only.
@GLibActor
final class EventLog {
    private(set) var events: [BusEvent] = []

    func append(_ event: BusEvent) { events.append(event) }
    func removeAll() { events.removeAll() }

    var stateChanges: [(old: ElementState, new: ElementState)] {
        events.compactMap { if case let .stateChanged(old, new, _) = $0 { return (old, new) }; return nil }
    }
    var errors: [GStreamerError] {
        events.compactMap { if case let .error(e) = $0 { return e }; return nil }
    }
    var collections: [[MediaStream]] {
        events.compactMap { if case let .streamCollection(s) = $0 { return s }; return nil }
    }
    var selections: [[String]] {
        events.compactMap { if case let .streamsSelected(ids) = $0 { return ids }; return nil }
    }
    func contains(_ event: BusEvent) -> Bool { events.contains(event) }

    /// Starts a watch on `pipeline` that appends every event to this log.
    func watch(_ pipeline: Element) -> BusWatch {
        BusWatch(pipeline: pipeline) { [weak self] event in self?.append(event) }
    }
}


/// playbin3 on a local file with fake sinks that sync to the clock (a fakesink with
/// sync=false as audio sink never completes PAUSED; see GSTREAMER-NOTES.md).
func makePlaybin(_ url: URL, file: StaticString = #filePath, line: UInt = #line) throws -> Element {
    let playbin = try XCTUnwrap(Element(factory: "playbin3"), file: file, line: line)
    playbin.set("uri", url.absoluteString)
    playbin.set("video-sink", try XCTUnwrap(Element(factory: "fakevideosink"), file: file, line: line))
    playbin.set("audio-sink", try XCTUnwrap(Element(factory: "fakeaudiosink"), file: file, line: line))
    return playbin
}
