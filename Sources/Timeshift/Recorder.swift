import FoundationEssentials
import GLibRuntime
import GStreamerKit
import Logging

/// One run of the recorder pipeline: starts it, reports each segment splitmuxsink closes,
/// and reports the run's end (an error, or the source ending). A restart is a new
/// `Recorder`. GLib thread only; `stop()` before dropping.
@GLibActor
final class Recorder {
    struct Segment {
        var fileName: String
        var duration: Double
        var bytes: Int
    }

    private let pipeline: RecorderPipeline
    /// State changes and latency go through the buffer's worker: a network source's
    /// pipeline (rtspsrc, souphttpsrc) can take seconds to start or stop.
    private let control: PipelineControl
    private var watch: BusWatch?
    private let onSegment: @GLibActor (Segment) -> Void
    private let onEnd: @GLibActor (String) -> Void
    /// Running time at which the open fragment began, by its location.
    private var openedAt: [String: Double] = [:]
    private var ended = false
    private let log = Logger(category: "timeshift")

    init(source: RecordingSource, folder: URL, startIndex: Int, worker: PipelineWorker,
         onSegment: @escaping @GLibActor (Segment) -> Void, onEnd: @escaping @GLibActor (String) -> Void) throws(RecorderError) {
        pipeline = try RecorderPipeline.make(source, folder: folder, startIndex: startIndex)
        control = worker.control(pipeline.pipeline)
        self.onSegment = onSegment
        self.onEnd = onEnd
        watch = BusWatch(pipeline: pipeline.pipeline) { [weak self] event in self?.handle(event) }
        // Live sources answer NO_PREROLL and go straight on; a refusal (a missing plugin, a
        // port in use) comes back on the bus and ends this run like any failure.
        control.setState(.playing)
    }

    /// Stops the run; `then` runs on the GLib thread once the pipeline is in NULL.
    func stop(then: (@GLibActor @Sendable () -> Void)? = nil) {
        watch?.stop()
        watch = nil
        // splitmuxsink (1.22) can hold a streaming thread waiting for the other stream to
        // reach a keyframe; the change to NULL then waits for that thread for ever (seen
        // when a recorder was stopped within a second of starting: the daemon hung). A
        // flush first makes it give up: on the worker, right before NULL, so that a start
        // still in flight cannot come after it.
        control.release(flushing: [pipeline.segmenter], then: then)
        pipeline.disconnect()
        ended = true
    }

    private func handle(_ event: BusEvent) {
        guard !ended else { return }
        switch event {
        case .element(let name, _, let fields) where name == "splitmuxsink-fragment-opened":
            if let location = fields["location"], let time = fields["running-time"].flatMap(Double.init) {
                openedAt[location] = time / 1e9
            }
        case .element(let name, _, let fields) where name == "splitmuxsink-fragment-closed":
            guard let location = fields["location"], let closed = fields["running-time"].flatMap(Double.init),
                  let opened = openedAt.removeValue(forKey: location) else { return }
            let url = URL(fileURLWithPath: location)
            let bytes = (try? FileManager.default.attributesOfItem(atPath: location)[.size] as? Int) ?? 0
            onSegment(Segment(fileName: url.lastPathComponent, duration: closed / 1e9 - opened, bytes: bytes))
        case .error(let error):
            end("\(error.message)")
        case .endOfStream:
            end("the source ended")
        case .latency:
            control.recalculateLatency()
        case .workDone(.stateChange(.playing, .failure)):
            end("the pipeline refused to play")
        default:
            break
        }
    }

    private func end(_ reason: String) {
        log.warning("recorder stopped", ["reason": reason])
        // Reported once the pipeline is down, so the fragment it was writing is closed
        // before the buffer removes it.
        let onEnd = self.onEnd
        stop { onEnd(reason) }
    }
}
