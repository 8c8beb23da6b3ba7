import ControlAPI
import GLibRuntime
import GStreamerKit

/// Splicing the composition section (`pipelines/composition.pipeline`: the inset's
/// intervideosrc, compositor, the frame size) into the output pipeline while an inset is
/// shown, and out again when it is gone.
///
/// Why not keep it in: compositor does not pass a lone input through. With the main video
/// only, it still converted and copied each frame, and the idle inset branch (an
/// intervideosrc sending black frames to a pad at alpha 0) cost more again: plain 720p
/// playback took 3.4x the CPU of a bare playbin3 (docs/PERFORMANCE.md). Without the section
/// the main video goes from its queue through the overlays to the sink.
extension OutputStage {
    /// The section's elements the code sets.
    struct Composition {
        let bin: Element
        /// The bin's ghost pads: the main video in, the composed frame out.
        let input: Pad, output: Pad
        let mainPad: Pad, pipPad: Pad
        let frame: Element
    }

    /// Splices the section in or out to match the layout; one splice at a time (the next
    /// is decided when the pending one is done).
    func spliceCompositionIfNeeded() {
        guard let parts, pendingSplice == nil else { return }
        // A pipeline still on its way to PLAYING sets each child to PLAYING when it gets
        // there, the section too: it would restart a section being taken out (which was then
        // freed while playing) or race with one being started. Look again in 10 ms.
        let state = parts.pipeline.currentState
        guard state.current == .playing, state.pending == .voidPending else {
            guard !spliceRetryScheduled else { return }
            spliceRetryScheduled = true
            runAfter(milliseconds: 10) { [weak self] in
                self?.spliceRetryScheduled = false
                self?.spliceCompositionIfNeeded()
            }
            return
        }
        let wanted = layout.inset != nil
        if wanted, composition == nil {
            do {
                try spliceIn(parts)
            } catch {
                log.error("cannot compose the inset", ["reason": "\(error)"])
            }
        } else if !wanted, let composition {
            spliceOut(composition, parts)
        }
    }

    private func spliceIn(_ parts: Parts) throws {
        let bin = try PipelineTemplate.parseBin(try TemplateLibrary.text(named: "composition"))
        guard let mix = bin.child(named: "mix"), let mainPad = mix.staticPad("sink_0"), let pipPad = mix.staticPad("sink_1"),
              let frame = bin.child(named: "frame"), let pipIn = bin.child(named: "pip-in"),
              let input = bin.staticPad("sink"), let output = bin.staticPad("src") else {
            throw APIError(.pipelineError, "the composition template lacks a named element the code needs")
        }
        pipIn.set("channel", pipChannel)
        pipIn.set("timeout", uint64: Self.inputTimeout)
        for pad in [mainPad, pipPad] { pad.set("sizing-policy", nick: "keep-aspect-ratio") }
        let composition = Composition(bin: bin, input: input, output: output, mainPad: mainPad, pipPad: pipPad, frame: frame)
        arrange(composition)
        parts.pipeline.add(bin)
        let splice = Splice()
        splice.unlink(parts.composeFrom, from: parts.composeInto)
        splice.link(parts.composeFrom, to: input)
        splice.link(output, to: parts.composeInto)
        splice.start(bin)
        self.composition = composition
        run(splice, on: parts) { [weak self] done in
            guard let self else { return }
            if !done {
                self.log.error("the composition section could not be linked in")
            }
            parts.pipeline.recalculateLatency()
        }
    }

    private func spliceOut(_ composition: Composition, _ parts: Parts) {
        // The compositor keeps producing frames until it stops: dropped from now, they would
        // fail as not-linked (an error) once the section is unlinked. The splice waits until
        // its output has been idle once, so no frame of it is still going through the
        // overlays when the main video's (of another size) comes: gdkpixbufoverlay warned
        // "invalid video buffer received".
        composition.output.dropData()
        let splice = Splice()
        splice.unlink(parts.composeFrom, from: composition.input)
        splice.unlink(composition.output, from: parts.composeInto)
        splice.link(parts.composeFrom, to: parts.composeInto)
        self.composition = nil
        run(splice, on: parts, after: composition.output) { [weak self] done in
            if !done { self?.log.error("the main video could not be linked past the composition section") }
            composition.bin.setState(.null)
            parts.pipeline.remove(composition.bin)
            parts.pipeline.recalculateLatency()
        }
    }

    /// Starts the splice and calls `finished` on the GLib thread once it was made (true) or
    /// failed (false), when its probe reports on the pipeline's bus (`spliceReported`); then
    /// looks whether the layout changed meanwhile. Nothing more when the stage stopped first.
    private func run(_ splice: Splice, on parts: Parts, after first: Pad? = nil, finished: @escaping @GLibActor (Bool) -> Void) {
        pendingSplice = splice
        spliceFinished = finished
        splice.report(to: parts.pipeline)
        splice.run(whenIdle: parts.composeFrom, after: first)
        // The probe runs before the next frame leaves main-deinterlace: within a frame period
        // while the stage plays. Waiting longer means it does not stream; give up after 5 s
        // (the layout stays as it was until the stage starts again).
        spliceTimeout = OneShotTimer(milliseconds: 5000) { [weak self, weak splice] in
            guard let self, let splice, self.pendingSplice === splice else { return }
            self.log.warning("the output stage did not reach a moment between frames within 5 s")
            splice.cancel()
            self.pendingSplice = nil
            self.spliceFinished = nil
        }
    }

    /// The pending splice's probe posted its outcome.
    func spliceReported() {
        guard let splice = pendingSplice, splice.outcome != .waiting else { return }
        let finished = spliceFinished
        pendingSplice = nil
        spliceFinished = nil
        spliceTimeout?.cancel()
        spliceTimeout = nil
        finished?(splice.outcome == .done)
        spliceCompositionIfNeeded()
    }
}
