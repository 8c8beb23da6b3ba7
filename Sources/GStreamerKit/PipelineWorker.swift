import CGStreamer
import Dispatch
import Synchronization
import GLibRuntime

/// What a call the worker made into a pipeline returned. It comes back on the pipeline's
/// own bus (`BusEvent.workDone`), after the messages the call itself caused.
public enum PipelineWork: Sendable, Equatable {
    case stateChange(to: ElementState, result: StateChangeResult)
    case seek(accepted: Bool)
    /// The duration and the seekable range, as the pipeline answered its queries.
    case queried(duration: Double?, seekable: SeekableRange?)
}

/// A time range the pipeline can seek in (seconds).
public struct SeekableRange: Sendable, Equatable {
    public var start: Double
    public var end: Double
    public init(start: Double, end: Double) {
        self.start = start
        self.end = end
    }
}

/// Makes the calls into pipelines that can block on one thread of its own, in the order
/// they are asked for, so that the GLib thread (which answers HTTP and WebSocket) never
/// waits on GStreamer: state changes, seeks, `select-streams`, queries that reach demuxers,
/// latency redistribution, and taking a pipeline to NULL.
///
/// Why: each of these can wait on a streaming thread, and a streaming thread can wait on
/// the network (hlsdemux2 downloads synchronously, rtspsrc connects, souphttpsrc reads)
/// for up to its timeout. Before this worker the API froze for 20 s: `select-streams` on
/// an HLS pipeline waited for hlsdemux2, whose download waited for the header proxy served
/// by that very thread.
///
/// The answers go back on the pipeline's bus, so the player sees them in the one ordered
/// stream of `BusEvent`s, after the messages the call caused, and never from a pipeline it
/// has already closed (its bus watch is gone). One worker serves all of a player's
/// pipelines: a pipeline's release runs before the next one starts, so the old and the
/// new never push frames to the output stage at once.
///
/// One thread of its own (a `ServiceThread`, named in stacks and logs), not Dispatch's pool,
/// whose jobs hop between threads: with a Dispatch queue, pipelines were freed on whichever
/// pool thread ran the last job, and the PiP on/off memory test (RSS growth over 30 cycles,
/// 15 MB allowed) failed in 2 of 5 runs (16 and 20 MB).
public final class PipelineWorker: Sendable {
    private let queue: ServiceThread
    /// Where pipelines are taken to NULL (see `release`); replaced when one gets stuck.
    private let teardown: Teardown

    /// `onStuckTeardown` hears of a pipeline whose way to NULL did not end within
    /// `Teardown.limitSeconds` (it is left behind; see `release`), on the worker's thread.
    public init(name: String, onStuckTeardown: (@Sendable (_ seconds: Double) -> Void)? = nil) {
        queue = ServiceThread(name: name)
        teardown = Teardown(name: "marquee-teardown", onStuck: onStuckTeardown)
    }

    /// A handle on `pipeline` whose calls run on this worker.
    public func control(_ pipeline: Element) -> PipelineControl {
        PipelineControl(pipeline: pipeline, queue: queue, teardown: teardown)
    }

    /// Waits until everything asked of the worker so far was done (a stuck teardown for at
    /// most `Teardown.limitSeconds`). Tests and exit only.
    public func drain() {
        queue.waitUntilIdle()
    }

    /// Ends the worker's threads once everything asked of it so far is done; later calls
    /// are not made. For a worker that belongs to one object (a timeshift buffer's), so
    /// that threads do not pile up over the life of the daemon. `drain()` first, if at all.
    public func finish() {
        let teardown = self.teardown
        queue.perform { teardown.finish() }
        queue.finish()
    }
}

/// One pipeline as the worker sees it: holds its own reference to it, so a release can
/// finish after the player dropped its own.
public final class PipelineControl: Sendable {
    private let pipeline: SendableElement
    private let queue: ServiceThread
    private let teardown: Teardown
    /// Set by `release()` at once: calls queued before it are skipped, so a pipeline
    /// replaced before it started is never started.
    private let released = Atomic<Bool>(false)

    fileprivate init(pipeline: Element, queue: ServiceThread, teardown: Teardown) {
        self.pipeline = SendableElement(pipeline)
        self.queue = queue
        self.teardown = teardown
    }

    /// Changes the state; posts `.stateChange` with the result.
    public func setState(_ state: ElementState) {
        perform { pipeline in
            let result = pipeline.element.setState(state)
            pipeline.post(.stateChange(to: state, result: result))
        }
    }

    /// A time seek (see `Element.seek`); posts `.seek` with whether the pipeline took it.
    public func seek(to position: Double, rate: Double, flags: Element.SeekFlags, stop: Double? = nil) {
        perform { pipeline in
            let accepted = pipeline.element.seek(to: position, rate: rate, flags: flags, stop: stop)
            pipeline.post(.seek(accepted: accepted))
        }
    }

    /// Sends `select-streams`; the pipeline answers with STREAMS_SELECTED.
    public func selectStreams(_ ids: [String]) {
        perform { pipeline in pipeline.element.selectStreams(ids) }
    }

    /// Asks the duration and the seekable range; posts `.queried`.
    public func query() {
        perform { pipeline in
            let duration = pipeline.element.queryDuration()
            let seekable = pipeline.element.querySeekable().map { SeekableRange(start: $0.start, end: $0.end) }
            pipeline.post(.queried(duration: duration, seekable: seekable))
        }
    }

    /// Writes a DOT graph of the pipeline as it is now (`Element.writeDotGraph`): file I/O,
    /// and before any release asked for after it (also when that release comes first to
    /// `released`: the graph of a failed pipeline is wanted precisely then).
    public func writeDotGraph(name: String) {
        let pipeline = self.pipeline
        queue.perform { pipeline.element.writeDotGraph(name: name) }
    }

    /// Redistributes latency after a LATENCY message.
    public func recalculateLatency() {
        perform { pipeline in pipeline.element.recalculateLatency() }
    }

    /// Takes the pipeline to NULL, then hands the worker's reference back to the GLib
    /// thread, where it is dropped (the last one, when the owner already let go: the
    /// pipeline is freed there, as before this worker existed) and then `then` runs (it
    /// trims the heap, which only helps once the decoders' buffers were freed).
    ///
    /// A pipeline still on its way to PAUSED gets up to `settleMilliseconds` to get there
    /// first. Taken to NULL while its typefind was announcing the type, playbin3 1.22
    /// deadlocked: the state change waited for typefind's streaming thread, which waited in
    /// parsebin's have-type handler for a lock the state change held (seen in 1 of 5 runs of
    /// a queue's next and previous sent back to back, once NULL followed PAUSED on the same
    /// thread with no reply's round trip between them). A local file prerolls in 10-20 ms.
    ///
    /// Then FLUSH_START goes into the sink pads of `flushing` (the sinks), so none of them
    /// waits to preroll while the pipeline passes PAUSED on its way down. playbin3 1.22
    /// deadlocked without it when a subtitle track was deselected just before the stop
    /// (1 in 30 stops under load, CI included): playsink reconfigured the text chain from a
    /// streaming thread with its lock held and waited for a pad's stream lock, held by a
    /// sink waiting to preroll, which only the state change could end, and the state change
    /// waited for playsink's lock.
    ///
    /// The change to NULL runs on the worker's teardown thread, and the worker waits for it
    /// at most `Teardown.limitSeconds`: a pipeline that GStreamer deadlocks on its way down is
    /// left behind (its threads and memory, reported to `onStuckTeardown`), and the next
    /// pipeline still starts; the daemon plays on and exits when asked.
    public func release(flushing sinks: [Element] = [], then: (@GLibActor @Sendable () -> Void)? = nil) {
        released.store(true, ordering: .sequentiallyConsistent)
        let handOff = HandOff(pipeline)
        let sinks = sinks.map(SendableElement.init)
        let teardown = self.teardown
        queue.perform {
            teardown.run {
                handOff.use { pipeline in
                    if case (.async, _) = pipeline.element.waitForState(timeoutSeconds: 0) {
                        pipeline.element.waitForState(timeoutSeconds: Double(Self.settleMilliseconds) / 1000)
                    }
                    for sink in sinks { sink.element.flushSinkPads() }
                    pipeline.element.setState(.null)
                }
                // No reference of this job is left now: the hand-off's is the worker's last.
                Task { @GLibActor in
                    handOff.drop()
                    then?()
                }
            }
        }
    }

    static let settleMilliseconds = 300

    /// Runs `work` on the worker unless the pipeline was released by then.
    /// Holds the control weakly: a job that outlived its control (skipped, as it was
    /// released) must not drop the last reference on the worker's thread.
    private func perform(_ work: @escaping @Sendable (SendableElement) -> Void) {
        queue.perform { [weak self] in
            guard let self, !released.load(ordering: .sequentiallyConsistent) else { return }
            work(pipeline)
        }
    }
}

/// The thread pipelines are taken to NULL on, which the worker waits for, up to a limit.
private final class Teardown: Sendable {
    /// A local file's pipeline reaches NULL in milliseconds, a network one (rtspsrc's
    /// TEARDOWN, a download being cancelled) within about a second; the daemon's own exit
    /// gives up after 5 s.
    static let limitSeconds = 3.0

    private let name: String
    private let thread: Mutex<ServiceThread>
    private let onStuck: (@Sendable (Double) -> Void)?

    init(name: String, onStuck: (@Sendable (Double) -> Void)?) {
        self.name = name
        thread = Mutex(ServiceThread(name: name))
        self.onStuck = onStuck
    }

    /// Runs `work` on the teardown thread and waits for it, at most `limitSeconds`. A
    /// thread still inside it then is left to it (a ServiceThread lives as long as the
    /// process), and later teardowns get a new one.
    func run(_ work: @escaping @Sendable () -> Void) {
        let done = DispatchSemaphore(value: 0)
        let current = thread.withLock { $0 }
        current.perform {
            work()
            done.signal()
        }
        guard done.wait(timeout: .now() + Self.limitSeconds) == .timedOut else { return }
        thread.withLock { $0 = ServiceThread(name: name) }
        current.finish()  // should GStreamer ever let go
        onStuck?(Self.limitSeconds)
    }

    /// Ends the thread after the teardowns given to it.
    func finish() {
        thread.withLock { $0 }.finish()
    }
}

/// The release job's reference to a pipeline, given back to the GLib thread to drop.
private final class HandOff: @unchecked Sendable {
    private let lock = ThreadLock()
    private var held: SendableElement?
    init(_ element: SendableElement) { held = element }
    /// Runs `body` with the element; the reference it got ends with `body`.
    func use(_ body: (SendableElement) -> Void) {
        guard let element = lock.withLock({ held }) else { return }
        body(element)
    }
    func drop() { lock.withLock { held = nil } }
}

/// An element handed to the worker's thread. GStreamer's state changes, events, queries
/// and message posting are thread-safe; the wrapper's own reference is released wherever
/// the last holder lets go.
private final class SendableElement: @unchecked Sendable {
    let element: Element

    init(_ element: Element) {
        gst_object_ref(UnsafeMutableRawPointer(element.pointer))
        self.element = Element(owning: element.pointer)
    }

    func post(_ work: PipelineWork) {
        guard let structure = gst_structure_new_empty(PipelineWork.messageName) else { return }
        work.write(to: structure)
        let source = UnsafeMutablePointer<GstObject>(OpaquePointer(element.pointer))
        guard let message = gst_message_new_application(source, structure) else { return }  // takes the structure
        gst_element_post_message(element.pointer, message)  // takes the message
    }
}

extension PipelineWork {
    static let messageName = "marquee-pipeline-work"

    /// Carried as fields of an application message: numbers in nanoseconds, -1 for none.
    fileprivate func write(to structure: UnsafeMutablePointer<GstStructure>) {
        switch self {
        case .stateChange(let state, let result):
            cgst_structure_set_int(structure, "state-change", Int32(state.rawValue))
            cgst_structure_set_int(structure, "result", result.code)
        case .seek(let accepted):
            cgst_structure_set_int(structure, "seek", accepted ? 1 : 0)
        case .queried(let duration, let seekable):
            cgst_structure_set_int64(structure, "duration", duration.map { ClockTime.nanoseconds($0) } ?? -1)
            cgst_structure_set_int64(structure, "seekable-start", seekable.map { ClockTime.nanoseconds($0.start) } ?? -1)
            cgst_structure_set_int64(structure, "seekable-end", seekable.map { ClockTime.nanoseconds($0.end) } ?? -1)
        }
    }

    /// The work a message of ours reports; nil for any other message.
    init?(structure: UnsafePointer<GstStructure>) {
        guard String(cString: gst_structure_get_name(structure)) == Self.messageName else { return nil }
        var int: Int32 = 0
        var start: Int = -1, end: Int = -1, duration: Int = -1
        if gst_structure_get_int(structure, "state-change", &int) != 0 {
            var code: Int32 = 0
            gst_structure_get_int(structure, "result", &code)
            self = .stateChange(to: ElementState(rawValue: Int(int)) ?? .voidPending, result: StateChangeResult(code: code))
        } else if gst_structure_get_int(structure, "seek", &int) != 0 {
            self = .seek(accepted: int != 0)
        } else {
            gst_structure_get_int64(structure, "duration", &duration)
            gst_structure_get_int64(structure, "seekable-start", &start)
            gst_structure_get_int64(structure, "seekable-end", &end)
            let seekable = start >= 0 && end > start ? SeekableRange(start: ClockTime.seconds(start) ?? 0,
                                                                     end: ClockTime.seconds(end) ?? 0) : nil
            self = .queried(duration: duration >= 0 ? ClockTime.seconds(duration) : nil, seekable: seekable)
        }
    }
}

extension StateChangeResult {
    fileprivate var code: Int32 {
        switch self {
        case .success: 0
        case .async: 1
        case .noPreroll: 2
        case .failure: 3
        }
    }

    fileprivate init(code: Int32) {
        self = [.success, .async, .noPreroll][safe: Int(code)] ?? .failure
    }
}

extension Array {
    fileprivate subscript(safe index: Int) -> Element? { indices.contains(index) ? self[index] : nil }
}
