import CGStreamer
import GStreamerSupport

/// Changes links in a running pipeline between two buffers: the unlinks and links are made
/// from an IDLE probe on the pad the data comes through, so no buffer is mid-push across
/// them. The probe runs at once when the pad is idle, otherwise in the streaming thread when
/// the current push returns; it then posts `BusEvent.spliced` on the pipeline given to
/// `report(to:)`, and `outcome` says how it went. The C side is `GStreamerSupport/splice.c`.
public final class Splice {
    private let raw: UnsafeMutablePointer<CGstSplice>
    private var unlinks = 0, links = 0
    private var started = false

    public enum Outcome { case waiting, done, failed }

    public init() { raw = cgst_splice_new() }

    deinit {
        // Two references: the probe's (given up when it is removed) and this object's.
        if !started { cgst_splice_unref(raw) }
        cgst_splice_unref(raw)
    }

    /// At most two unlinks and two links; they are made in that order.
    public func unlink(_ src: Pad, from sink: Pad) {
        precondition(unlinks < 2 && !started)
        cgst_splice_unlink(raw, Int32(unlinks), src.pointer, sink.pointer)
        unlinks += 1
    }

    public func link(_ src: Pad, to sink: Pad) {
        precondition(links < 2 && !started)
        cgst_splice_link(raw, Int32(links), src.pointer, sink.pointer)
        links += 1
    }

    /// An element (added to the pipeline, still in NULL) to bring to the pipeline's state once
    /// the links are made, in the same step: a live source in it must not start pushing
    /// into an unlinked pad, nor the data arrive at it while it is not yet running.
    public func start(_ element: Element) {
        precondition(!started)
        cgst_splice_sync(raw, element.pointer)
    }

    /// The pipeline on whose bus the outcome is posted (`BusEvent.spliced`).
    public func report(to pipeline: Element) {
        precondition(!started)
        cgst_splice_notify(raw, pipeline.pointer)
    }

    /// Makes the changes when `pad` is next idle; with `after`, once that pad has been idle
    /// first (an element's output cut off with `dropData`, whose last push may still be on its
    /// way downstream until then).
    public func run(whenIdle pad: Pad, after first: Pad? = nil) {
        precondition(!started)
        started = true
        if let first {
            cgst_splice_when_idle_after(first.pointer, pad.pointer, raw)
        } else {
            cgst_splice_when_idle(pad.pointer, raw)
        }
    }

    /// Makes the splice do nothing if its probe has not started; if it is running, waits
    /// (up to 200 ms) until it is done. Call before the pipeline stops: a probe running while
    /// the pipeline goes down to NULL would start an element again, and the pipeline would be
    /// freed with it still playing.
    public func cancel() {
        guard cgst_splice_cancel(raw) == 0 else { return }
        for _ in 0..<200 where cgst_splice_phase(raw) == 1 { usleep(1000) }
    }

    public var outcome: Outcome {
        switch cgst_splice_phase(raw) {
        case 0, 1: return .waiting
        case 2: return .done
        default: return .failed
        }
    }
}

extension Pad {
    /// Drops every buffer and event that would leave this pad from now on: for an element
    /// about to be taken out of a running pipeline, whose pushes would fail as not-linked
    /// (an error) once it is unlinked.
    public func dropData() { cgst_pad_drop_data(pointer) }
}
